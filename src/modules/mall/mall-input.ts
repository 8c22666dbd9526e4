// The merchant tuples of POST /api/mall (reference §5.1), read position by position:
// [store token, amount, subject, event code or null, individual order, (optional) the store's urlnotify].
// Amounts and orders may come as numbers or strings (supplement §1.2); every problem names its place.
import { limits, mallLimits } from '../../limits/index.ts';

export interface MallLineInput {
  readonly position: number;
  readonly merchant: string;
  readonly amountMinor: bigint;
  readonly subject: string;
  readonly event: string | null;
  readonly individualOrder: string;
  readonly urlnotify: string | null;
}

export type LinesRead =
  | { readonly ok: true; readonly lines: readonly MallLineInput[]; readonly totalMinor: bigint }
  | { readonly ok: false; readonly errors: Readonly<Record<string, string>> };

/** A string, or a number written as its text; anything else is not text. */
function textOf(value: unknown): string | null {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return null;
}

function amountOf(value: unknown): bigint | null {
  const text =
    typeof value === 'number'
      ? Number.isSafeInteger(value)
        ? String(value)
        : null
      : typeof value === 'string'
        ? value.trim()
        : null;
  if (text === null || !/^\d{1,14}$/.test(text)) return null;
  const minor = BigInt(text);
  return minor >= 1n && minor <= limits.amountMinorMax ? minor : null;
}

export function readMallLines(tuples: readonly (readonly unknown[])[]): LinesRead {
  const errors: Record<string, string> = {};
  const lines: MallLineInput[] = [];
  tuples.forEach((tuple, i) => {
    const at = (n: number) => `merchant.${i}.${n}`;
    if (tuple.length < 5 || tuple.length > 6) {
      errors[`merchant.${i}`] = 'invalid';
      return;
    }
    const before = Object.keys(errors).length;
    const text = (n: number, max: number, required: boolean): string | null => {
      const value = tuple[n];
      if (value === null || value === undefined) {
        if (required) errors[at(n)] = 'is empty';
        return null;
      }
      const t = textOf(value);
      if (t === null) {
        errors[at(n)] = 'invalid';
        return null;
      }
      if (t === '') {
        if (required) errors[at(n)] = 'is empty';
        return null;
      }
      if (t.length > max) {
        errors[at(n)] = 'too long';
        return null;
      }
      return t;
    };
    const merchant = text(0, mallLimits.merchantTokenLengthMax, true);
    const amountMinor =
      tuple[1] === null || tuple[1] === undefined || tuple[1] === '' ? null : amountOf(tuple[1]);
    if (amountMinor === null)
      errors[at(1)] =
        tuple[1] === null || tuple[1] === undefined || tuple[1] === '' ? 'is empty' : 'invalid';
    const subject = text(2, mallLimits.subjectLengthMax, true);
    const event = text(3, mallLimits.eventLengthMax, false);
    const individualOrder = text(4, mallLimits.individualOrderLengthMax, true);
    const urlnotify = tuple.length === 6 ? text(5, mallLimits.urlnotifyLengthMax, false) : null;
    if (Object.keys(errors).length > before) return;
    lines.push({
      position: i,
      merchant: merchant!,
      amountMinor: amountMinor!,
      subject: subject!,
      event,
      individualOrder: individualOrder!,
      urlnotify,
    });
  });
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const totalMinor = lines.reduce((sum, l) => sum + l.amountMinor, 0n);
  if (totalMinor > limits.amountMinorMax)
    return { ok: false, errors: { merchant: 'amounts add up to more than 14 digits' } };
  return { ok: true, lines, totalMinor };
}

/**
 * The mall's body as `readMallLines` reads it, for the Idempotency-Key's hash (decision 940): a tuple's `"30000"` and
 * `30000`, or its order `7` and `"7"`, are one request. Tuples it refuses are hashed as they came.
 */
export function mallBodyAsRead<B extends { readonly merchant: readonly (readonly unknown[])[] }>(
  body: B,
): unknown {
  const read = readMallLines(body.merchant);
  return read.ok ? { ...body, merchant: read.lines } : body;
}
