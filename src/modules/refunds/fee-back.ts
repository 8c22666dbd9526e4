// The service's fee on a refunded sale goes back in proportion to what is refunded (decision 110), rounded half
// up on the running total: after refunds of r1..rk of a gross g with fee f, exactly round(f * (r1+..+rk) / g) has
// gone back, so a sale refunded whole in any number of parts gives back exactly its fee, never a peso more.
import assert from 'node:assert/strict';

function proportionalHalfUp(feeMinor: bigint, partMinor: bigint, grossMinor: bigint): bigint {
  const scaled = feeMinor * partMinor;
  const floor = scaled / grossMinor;
  return (scaled % grossMinor) * 2n >= grossMinor ? floor + 1n : floor;
}

/** The fee given back with a refund of `amountMinor` after `refundedBeforeMinor` was already refunded. */
export function feeBackMinor(input: {
  grossMinor: bigint;
  feeMinor: bigint;
  refundedBeforeMinor: bigint;
  amountMinor: bigint;
}): bigint {
  const { grossMinor, feeMinor, refundedBeforeMinor, amountMinor } = input;
  assert.ok(
    grossMinor > 0n && feeMinor >= 0n && feeMinor <= grossMinor,
    'a fee is part of a positive gross',
  );
  assert.ok(
    amountMinor > 0n &&
      refundedBeforeMinor >= 0n &&
      refundedBeforeMinor + amountMinor <= grossMinor,
    'refunds stay within the gross',
  );
  return (
    proportionalHalfUp(feeMinor, refundedBeforeMinor + amountMinor, grossMinor) -
    proportionalHalfUp(feeMinor, refundedBeforeMinor, grossMinor)
  );
}
