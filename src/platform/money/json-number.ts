// The one place a minor-unit bigint becomes a JSON number, for the fields the seed types as numbers
// (amount_available, paymentData totals). Exact by assertion: amounts are at most 14 digits.
import assert from 'node:assert/strict';

export function minorAsJsonNumber(minor: bigint): number {
  assert.ok(
    minor >= -BigInt(Number.MAX_SAFE_INTEGER) && minor <= BigInt(Number.MAX_SAFE_INTEGER),
    'amount fits a JSON number exactly',
  );
  return Number(minor);
}
