// Bounds of Idempotency-Key: its length, its life and its claim's lease.
import { minuteMs, dayMs } from './units.ts';

export const idempotencyLimits = {
  // Idempotency keys.
  idempotencyKeyLengthMax: 255,
  idempotencyTtlMs: dayMs,
  /** How long a request may run before its claim is considered abandoned: the default of IDEMPOTENCY_LEASE_MS. */
  idempotencyLeaseMs: minuteMs,
  /** The shortest IDEMPOTENCY_LEASE_MS: a claim must outlast a command's own commit. */
  idempotencyLeaseMsMin: 1_000,
  idempotencyClaimAttemptsMax: 3,
} as const;
