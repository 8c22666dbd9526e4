// Every bound the service enforces, in one place (STYLE rule 4). Field lengths come from the seed's tables.
import assert from 'node:assert/strict';

export const limits = {
  bodyBytesMax: 1024 * 1024,
  pageSizeMax: 4000,
  pageSizeDefault: 1000,
  amountDigitsMax: 14,
  /** 10^14 - 1: the largest amount the seed's "max 14 digits" allows. */
  amountMinorMax: 99_999_999_999_999n,
  accountNameLengthMax: 120,
  additionalParametersCharsMax: 4000,
  idempotencyKeyLengthMax: 255,
  idempotencyTtlMs: 24 * 60 * 60 * 1000,
  requestIdLengthMax: 128,
  opsRequestBytesMax: 64 * 1024,
  cliListRowsMax: 1000,
  dbPoolSizeMax: 10,
  // Longer than one callback send (15 s), so a stopping server finishes its deliveries in flight.
  shutdownGraceMs: 20_000,
} as const;

assert.ok(limits.pageSizeDefault <= limits.pageSizeMax, 'default page must fit the maximum page');
assert.ok(limits.amountMinorMax < BigInt(Number.MAX_SAFE_INTEGER) * 100n, 'amounts stay exact as bigint');
assert.ok(limits.opsRequestBytesMax < limits.bodyBytesMax);
