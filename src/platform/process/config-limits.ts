// The process limits read from the environment: DB_PREPARED_STATEMENTS, READY_TIMEOUT_MS, PASSWORD_HASH_COST and
// ATTEMPT_LEASE_MS (config.ts puts them in the Config, whose fields say what each is).
import { intInRange, oneOf, type Env } from './config-values.ts';
import { configLimits, limits, transactionLimits, userLimits } from '../../limits/index.ts';

/** DB_PREPARED_STATEMENTS, READY_TIMEOUT_MS, PASSWORD_HASH_COST and ATTEMPT_LEASE_MS. */
export function limitSettings(
  env: Env,
  errors: string[],
): {
  readonly dbPreparedStatements: boolean;
  readonly readyTimeoutMs: number;
  readonly passwordHashCost: number;
  readonly attemptLeaseMs: number;
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
  return { dbPreparedStatements, readyTimeoutMs, passwordHashCost, attemptLeaseMs };
}
