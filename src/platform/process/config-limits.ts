// The process limits read from the environment: DB_PREPARED_STATEMENTS, READY_TIMEOUT_MS, PASSWORD_HASH_COST,
// ATTEMPT_LEASE_MS and CALLBACK_RETENTION_DAYS (config.ts puts them in the Config, whose fields say what each is).
import { intInRange, oneOf, type Env } from './config-values.ts';
import { configLimits, limits, transactionLimits, userLimits } from '../../limits/index.ts';

/** DB_PREPARED_STATEMENTS, READY_TIMEOUT_MS, PASSWORD_HASH_COST, ATTEMPT_LEASE_MS and CALLBACK_RETENTION_DAYS. */
export function limitSettings(
  env: Env,
  errors: string[],
): {
  readonly dbPreparedStatements: boolean;
  readonly readyTimeoutMs: number;
  readonly passwordHashCost: number;
  readonly attemptLeaseMs: number;
  readonly callbackRetentionDays: number | null;
} {
  const dbPreparedStatements =
    oneOf(env, 'DB_PREPARED_STATEMENTS', ['on', 'off'] as const, 'on', errors) === 'on';
  const readyTimeoutMs = intInRange(
    env,
    'READY_TIMEOUT_MS',
    configLimits.readyTimeoutMsDefault,
    configLimits.readyTimeoutMsMin,
    configLimits.readyTimeoutMsMax,
    errors,
  );
  const passwordHashCost = intInRange(
    env,
    'PASSWORD_HASH_COST',
    userLimits.passwordHashCostDefault,
    userLimits.passwordHashCostMin,
    userLimits.passwordHashCostMax,
    errors,
  );
  // Only shorter than the default (a test's killed process frees its sales sooner): it stays under expiryLeadMsMin.
  const attemptLeaseMs = intInRange(
    env,
    'ATTEMPT_LEASE_MS',
    transactionLimits.attemptLeaseMs,
    limits.idempotencyLeaseMsMin,
    transactionLimits.attemptLeaseMs,
    errors,
  );
  return {
    dbPreparedStatements,
    readyTimeoutMs,
    passwordHashCost,
    attemptLeaseMs,
    callbackRetentionDays: callbackRetentionDaysOf(env, errors),
  };
}

/** CALLBACK_RETENTION_DAYS (decision 994): `0` keeps every callback (null); otherwise a week to ten years. */
function callbackRetentionDaysOf(env: Env, errors: string[]): number | null {
  const { callbackRetentionDaysMin: min, callbackRetentionDaysMax: max } = configLimits;
  const days = intInRange(
    env,
    'CALLBACK_RETENTION_DAYS',
    configLimits.callbackRetentionDaysDefault,
    0,
    max,
    errors,
  );
  if (days === 0) return null;
  if (days >= min) return days;
  errors.push(
    `CALLBACK_RETENTION_DAYS must be 0 (keep every callback) or an integer from ${min} to ${max}, got "${env.CALLBACK_RETENTION_DAYS}"`,
  );
  return configLimits.callbackRetentionDaysDefault;
}
