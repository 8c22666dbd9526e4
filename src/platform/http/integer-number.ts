// How a JSON number fills an integer field (decision 1160): it is its exact decimal value, read from the text the
// client wrote (which the JSON body parser notes), never from the double JSON.parse made of it. `100`, `100.0`,
// `1e2` and `1.0e2` are all 100; `100.00000000000000001`, which parses to 100, is a fraction and refused.
import { limits } from '../../limits/index.ts';

/**
 * The exact value × 10^`scale` of a JSON number's text when that is an integer, whatever its spelling (`100`,
 * `100.0`, `1e2`, `1.0e2`, `10000e-2`): decimal arithmetic on the text, not the double JSON.parse made of it, so that
 * `100.00000000000000001` (which parses to 100) is `fraction`. `huge` past limits.integerNumberDigitsMax digits
 * (`1e400`), so that no exponent builds a giant BigInt. `scale` 0 reads an integer field (decision 1160), 2 a
 * percentage in hundredths (percent-at.ts, decision 1170).
 */
export function scaledIntegerOfNumberText(
  text: string,
  scale: number,
): bigint | 'fraction' | 'huge' | null {
  const match = /^(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/.exec(text);
  if (match === null) return null;
  const [, sign, whole, fraction = '', exponentText = '0'] = match;
  let digits = `${whole}${fraction}`.replace(/^0+/, '');
  if (digits === '') return 0n;
  let exponent = Number(exponentText) + scale - fraction.length;
  const kept = digits.replace(/0+$/, '');
  exponent += digits.length - kept.length;
  digits = kept;
  if (exponent < 0) return 'fraction';
  if (digits.length + exponent > limits.integerNumberDigitsMax) return 'huge';
  const value = BigInt(digits) * 10n ** BigInt(exponent);
  return sign === '-' ? -value : value;
}

/** The exact integer a JSON number's text writes (scaledIntegerOfNumberText at scale 0). */
export function integerOfNumberText(text: string): bigint | 'fraction' | 'huge' | null {
  return scaledIntegerOfNumberText(text, 0);
}

/** An integer field's bounds, as its schema declares them. */
interface Bounds {
  readonly minimum?: unknown;
  readonly maximum?: unknown;
}

/**
 * What a JSON number `value`, written as `text` (undefined when the parser noted none, it is its own text), must become in
 * an integer field: undefined to leave it, the integer it spells, `invalid` for a fraction, or the largest double
 * (negated below zero) for an integer past exactness, so that the field's bound says `too large` (`too small`).
 */
export function integerOfNumber(
  text: string | undefined,
  value: number,
  bounds: Bounds,
): number | 'invalid' | undefined {
  // No noted text: the value's own text is what was written, an integer Ajv takes or a fraction it refuses.
  if (text === undefined) return undefined;
  const exact = integerOfNumberText(text);
  if (exact === null || exact === 'fraction') return 'invalid';
  if (exact === 'huge' || !Number.isSafeInteger(Number(exact))) {
    // Past a double's exact integers no field's bound reaches; without one it is no integer we can read exactly.
    const negative = text.startsWith('-');
    if (typeof (negative ? bounds.minimum : bounds.maximum) !== 'number') return 'invalid';
    return negative ? -Number.MAX_VALUE : Number.MAX_VALUE;
  }
  const read = Number(exact);
  return read === value ? undefined : read;
}
