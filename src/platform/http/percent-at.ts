// One reader of a percentage inside an untyped part of a body (decision 1170): a membership's `[client_id,
// percentage]` pairs and an event's beneficiaries, which no schema types (decision 845), and the merchant's own
// membership percentage. Money is split by the value read, so it is read from the text as written (the JSON body
// parser's note of a number's source text), by decimal arithmetic, never through a double: `33.330` and `1e1` are
// the 33.33 and 10 they write, `33.32999999999999999` is not 33.33.
import { bpsPerWhole } from '../money/percent.ts';
import { numberTextOf } from './json-body.ts';

/** A percentage in basis points (hundredths of a percent), or why there is none. */
export type PercentRead =
  | { readonly ok: true; readonly bps: number }
  | { readonly ok: false; readonly problem: 'is empty' | 'invalid' | 'too long' };

export interface PercentRules {
  /** The most characters the written form may have (the seed's "max 6 characters": `100.00`). */
  readonly lengthMax: number;
  /** Whether 0 is a percentage here (the merchant may keep nothing; a beneficiary or a client must get something). */
  readonly zeroAllowed: boolean;
}

/** A JSON number's text (the JSON grammar: sign, digits, fraction, exponent). */
const numberText = /^(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;

/** A string: plain ASCII decimal digits with an optional fraction; no sign, no exponent (decision 1160's strings). */
const stringText = /^([0-9]+)(?:\.([0-9]+))?$/;

/** The most digits 100.00 takes in basis points. */
const bpsDigitsMax = String(bpsPerWhole).length;

/**
 * Exact basis points of `sign digits.fraction × 10^exponent`, or null when that value is not a whole number of
 * hundredths between 0 and 100. Pure digit-string arithmetic: no double ever holds the value.
 */
function bpsOfDecimal(
  negative: boolean,
  whole: string,
  fraction: string,
  exponent: number,
): number | null {
  const digits = `${whole}${fraction}`.replace(/^0+/, '');
  if (digits === '') return 0;
  if (negative || !Number.isSafeInteger(exponent)) return null;
  // value × 100 = digits × 10^shift
  const shift = exponent + 2 - fraction.length;
  let bpsDigits: string;
  if (shift >= 0) {
    if (digits.length + shift > bpsDigitsMax) return null;
    bpsDigits = digits + '0'.repeat(shift);
  } else {
    const cut = digits.length + shift;
    // A non-zero digit past the hundredths: more decimals than a percentage has.
    if (!/^0*$/.test(digits.slice(Math.max(cut, 0)))) return null;
    bpsDigits = digits.slice(0, cut);
  }
  if (bpsDigits.length > bpsDigitsMax) return null;
  const bps = Number(bpsDigits);
  return bps <= bpsPerWhole ? bps : null;
}

/** The basis points a text means, read as a JSON number's text or as a string's. */
function bpsOfText(text: string, isNumber: boolean): number | null {
  if (isNumber) {
    const m = numberText.exec(text);
    if (m === null) return null;
    return bpsOfDecimal(m[1] === '-', m[2]!, m[3] ?? '', m[4] === undefined ? 0 : Number(m[4]));
  }
  const m = stringText.exec(text);
  return m === null ? null : bpsOfDecimal(false, m[1]!, m[2] ?? '', 0);
}

/**
 * `holder[key]` read as a percentage: absent, null or a blank string is `is empty`; a text written in more than
 * `lengthMax` characters is `too long`; a number is the exact decimal its source text writes, whatever the
 * spelling (`10`, `10.0`, `1e1`); a string is plain decimal digits, surrounding blanks aside (`" 10 "`, `"10.00"`);
 * anything else, or a value that is not a whole number of hundredths in 0..100 (0 only where allowed), is `invalid`.
 */
export function percentAt(holder: object, key: string, rules: PercentRules): PercentRead {
  const value = (holder as Readonly<Record<string, unknown>>)[key];
  if (value === undefined || value === null) return { ok: false, problem: 'is empty' };
  const noted = numberTextOf(holder, key);
  // A string field declaring `x-cobro-number-as-written` gets a number's text from the input guards in its place
  // (decision 1180): the parser's note for that slot, which only a number ever had, tells it was that number.
  const isNumber = typeof value === 'number' || (noted !== undefined && value === noted);
  let written: string;
  if (isNumber) {
    written = noted ?? String(value);
  } else if (typeof value === 'string') {
    if (value.trim() === '') return { ok: false, problem: 'is empty' };
    written = value;
  } else {
    return { ok: false, problem: 'invalid' };
  }
  if (written.length > rules.lengthMax) return { ok: false, problem: 'too long' };
  const bps = bpsOfText(isNumber ? written : written.trim(), isNumber);
  if (bps === null || (bps === 0 && !rules.zeroAllowed)) return { ok: false, problem: 'invalid' };
  return { ok: true, bps };
}
