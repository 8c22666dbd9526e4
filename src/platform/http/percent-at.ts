// One reader of a percentage inside an untyped part of a body (decision 1170): a membership's `[client_id,
// percentage]` pairs and an event's beneficiaries, which no schema types (decision 845), and the merchant's own
// membership percentage. Money is split by the value read, so it is read from the text as written (the JSON body
// parser's note of a number's source text), by decimal arithmetic, never through a double: `33.330` and `1e1` are
// the 33.33 and 10 they write, `33.32999999999999999` is not 33.33.
import { bpsPerWhole } from '../money/percent.ts';
import { numberTextOf } from './json-body.ts';
import { scaledIntegerOfNumberText } from './integer-number.ts';

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

/** A string: plain ASCII decimal digits with an optional fraction; no sign, no exponent (decision 1160's strings). */
const stringText = /^[0-9]+(?:\.[0-9]+)?$/;

/**
 * The basis points a text means, read as a JSON number's text or as a string's, or null when it is not a whole
 * number of hundredths between 0 and 100: the exact decimal reading of integer fields (integer-number.ts) at two
 * decimals, so no double ever holds the value.
 */
function bpsOfText(text: string, isNumber: boolean): number | null {
  if (!isNumber && !stringText.test(text)) return null;
  const bps = scaledIntegerOfNumberText(text, 2);
  if (typeof bps !== 'bigint' || bps < 0n || bps > BigInt(bpsPerWhole)) return null;
  return Number(bps);
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
