// The service's fee on a refunded sale goes back in proportion to what is refunded (decision 110), rounded half
// up on the running total of the sale's refunds that stand: after refunds of r1..rk of a gross g with fee f,
// exactly round(f * (r1+..+rk) / g) has gone back, so a sale refunded whole in any number of parts gives back
// exactly its fee, never a peso more. A refund the processor refused gives its fee part back to the service
// (give-back.ts) and stops counting: the next refund gives back what makes the standing refunds' total right
// (decision 975). Reckoned from the refunded total alone, a refusal arriving after a later refund left the total
// a peso off, so a sale could give back 101 of a fee of 100.
import assert from 'node:assert/strict';

function proportionalHalfUp(feeMinor: bigint, partMinor: bigint, grossMinor: bigint): bigint {
  const scaled = feeMinor * partMinor;
  const floor = scaled / grossMinor;
  return (scaled % grossMinor) * 2n >= grossMinor ? floor + 1n : floor;
}

/**
 * The fee given back with a refund of `amountMinor`, after the sale's standing refunds (every one not refused) of
 * `refundedBeforeMinor` gave back `feeBackBeforeMinor`: never below zero, never more than the amount or than the
 * fee has left.
 */
export function feeBackMinor(input: {
  grossMinor: bigint;
  feeMinor: bigint;
  refundedBeforeMinor: bigint;
  feeBackBeforeMinor: bigint;
  amountMinor: bigint;
}): bigint {
  const { grossMinor, feeMinor, refundedBeforeMinor, feeBackBeforeMinor, amountMinor } = input;
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
  assert.ok(
    feeBackBeforeMinor >= 0n && feeBackBeforeMinor <= feeMinor,
    'refunds never gave back more than the fee',
  );
  const owedMinor =
    proportionalHalfUp(feeMinor, refundedBeforeMinor + amountMinor, grossMinor) -
    feeBackBeforeMinor;
  const ceilingMinor =
    amountMinor < feeMinor - feeBackBeforeMinor ? amountMinor : feeMinor - feeBackBeforeMinor;
  return owedMinor < 0n ? 0n : owedMinor > ceilingMinor ? ceilingMinor : owedMinor;
}
