// How a marketplace payment's net divides (decision 045): the merchant's share listed first, then the clients in
// the membership's order, so an exact tie in the rounding favours the merchant.
import { splitByBasisPoints } from '../../platform/money/split.ts';

export interface NetDivision {
  readonly merchantMinor: bigint;
  readonly parts: readonly { readonly clientId: string; readonly amountMinor: bigint }[];
}

export function divideMarketplaceNet(
  netMinor: bigint,
  merchantBps: number,
  clients: readonly { readonly clientId: string; readonly bps: number }[],
): NetDivision {
  const split = splitByBasisPoints(netMinor, [
    { id: '', bps: merchantBps },
    ...clients.map((c) => ({ id: c.clientId, bps: c.bps })),
  ]);
  return {
    merchantMinor: split[0]!.amountMinor,
    parts: clients.map((c, i) => ({
      clientId: c.clientId,
      amountMinor: split[i + 1]!.amountMinor,
    })),
  };
}
