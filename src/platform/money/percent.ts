// Percentages as integer basis points (hundredths of a percent: "20.00" -> 2000). Parsing works on the text,
// never through a float, so "80.5", "80.50" and 80.5 all become exactly 8050 and 33.333 is refused.
export const bpsPerWhole = 10_000;

const percentText = /^(\d{1,3})(?:\.(\d{1,2}))?$/;

/**
 * Exact basis points of a percentage written as text or a JSON number, or null when it is not a plain decimal
 * with at most two decimals between 0 and 100. A number goes through its shortest text form, which is the form
 * the client wrote for any value with at most two decimals (80.5 -> "80.5"); exponents (1e-7) are refused.
 */
export function parsePercentBps(input: unknown): number | null {
  let text: string;
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) return null;
    text = String(input);
  } else if (typeof input === 'string') {
    text = input.trim();
  } else {
    return null;
  }
  const m = percentText.exec(text);
  if (m === null) return null;
  const whole = Number(m[1]);
  const fraction = Number((m[2] ?? '').padEnd(2, '0'));
  const bps = whole * 100 + fraction;
  return bps <= bpsPerWhole ? bps : null;
}

/** "20.00" from 2000: the two-decimal text the reference renders percentages with. */
export function formatBps(bps: number): string {
  if (!Number.isSafeInteger(bps) || bps < 0)
    throw new RangeError(`basis points must be a non-negative integer, got ${bps}`);
  return `${Math.floor(bps / 100)}.${String(bps % 100).padStart(2, '0')}`;
}

/** 2000 -> 20, 8050 -> 80.5: for the few fields the reference shows as JSON numbers. Exact for two decimals. */
export function bpsToNumber(bps: number): number {
  return bps / 100;
}

/** "10.00" from 10n: a whole minor-unit amount in the two-decimal form the event distribution shows. */
export function formatMinorTwoDecimals(amountMinor: bigint): string {
  return `${amountMinor.toString()}.00`;
}
