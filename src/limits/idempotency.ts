// Bounds of Idempotency-Key: its length, its life and its claim's lease.
import { minuteMs, dayMs } from './units.ts';
import { transactionLimits } from './modules.ts';

export const idempotencyLimits = {
  // Idempotency keys.
  idempotencyKeyLengthMax: 255,
  idempotencyTtlMs: dayMs,
  /** How long a request may run before its claim is considered abandoned: the default of IDEMPOTENCY_LEASE_MS. */
  idempotencyLeaseMs: minuteMs,
  /** The shortest IDEMPOTENCY_LEASE_MS: a claim must outlast a command's own commit. */
  idempotencyLeaseMsMin: 1_000,
  /**
   * The shortest IDEMPOTENCY_LEASE_MS in production (decision 870): a stored-card charge a request makes runs inside
   * its claim (stored-charge.ts) and may wait on the acquirer twice (Oneclick's status, then its authorize), so the
   * claim outlasts both calls with room for the request's own statements; a shorter one is for tests' killed servers.
   */
  idempotencyLeaseMsProductionMin: 3 * transactionLimits.acquirer.requestTimeoutMs,
  idempotencyClaimAttemptsMax: 3,
} as const;
