// Percentages as integer basis points (hundredths of a percent: "20.00" -> 2000). A request's percentage is read
// from its written text by src/platform/http/percent-at.ts (decision 1170), never through a float.
export const bpsPerWhole = 10_000;

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
