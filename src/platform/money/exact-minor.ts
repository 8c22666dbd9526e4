// An amount another party wrote (Fintoc's `amount`: an unsigned integer of minor units, as a JSON number or, read
// by a client that keeps big numbers, a string of digits) read exactly, or null: a decimal, a sign, an exponent, a
// number past 2^53 or anything else is not an amount Cobro can compare (decision 965). Never a float.
export function unsignedMinorOf(value: unknown): bigint | null {
  if (typeof value === 'number')
    return Number.isSafeInteger(value) && value >= 0 ? BigInt(value) : null;
  if (typeof value === 'string' && /^(0|[1-9][0-9]*)$/.test(value)) return BigInt(value);
  return null;
}
