// How one paid sale's net divides (decision 042): the merchant first keeps the event's service amount (at most the
// net), the rest goes by the beneficiaries' percents, and whatever percent they do not cover stays with the merchant.
import { bpsPerWhole } from '../../platform/money/percent.ts';
import { splitByBasisPoints, type Share } from '../../platform/money/split.ts';

export interface SaleDivision {
  readonly serviceMinor: bigint;
  /** One part per beneficiary, in their order. */
  readonly parts: readonly { readonly beneficiaryId: string; readonly amountMinor: bigint }[];
  readonly affiliateMinor: bigint;
  /** Service amount plus the uncovered percent: net - affiliateMinor. */
  readonly merchantMinor: bigint;
}

const merchantShareId = '';

export function divideEventSale(
  netMinor: bigint,
  serviceSaleMinor: bigint,
  beneficiaries: readonly Share[],
): SaleDivision {
  const serviceMinor = serviceSaleMinor < netMinor ? serviceSaleMinor : netMinor;
  const coveredBps = beneficiaries.reduce((sum, b) => sum + b.bps, 0);
  const shares: Share[] = [...beneficiaries];
  if (coveredBps < bpsPerWhole) shares.push({ id: merchantShareId, bps: bpsPerWhole - coveredBps });
  const parts = splitByBasisPoints(netMinor - serviceMinor, shares)
    .slice(0, beneficiaries.length)
    .map((p) => ({ beneficiaryId: p.id, amountMinor: p.amountMinor }));
  const affiliateMinor = parts.reduce((sum, p) => sum + p.amountMinor, 0n);
  return { serviceMinor, parts, affiliateMinor, merchantMinor: netMinor - affiliateMinor };
}
