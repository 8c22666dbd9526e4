// A dispute as the API, the callbacks and the CLI show it: amounts as integers of minor units, times in the
// service's time zone like the rest of the API.
import { minorAsJsonNumber } from '../../platform/money/json-number.ts';
import { formatTimestamp } from '../../platform/time/time-format.ts';
import type { DisputeRow } from './repository.ts';

export function disputeView(row: DisputeRow, timeZone: string) {
  return {
    id: row.id,
    transaction_id: row.transaction_id,
    amount: minorAsJsonNumber(BigInt(row.amount_minor)),
    currency: row.currency,
    reason: row.reason,
    status: row.status,
    respond_by: formatTimestamp(row.respond_by, timeZone),
    evidence: { text: row.evidence_text, urls: [...row.evidence_urls] },
    from_wallet: minorAsJsonNumber(BigInt(row.from_wallet_minor)),
    debt: minorAsJsonNumber(BigInt(row.debt_minor)),
    created_at: formatTimestamp(row.created_at, timeZone),
    updated_at: formatTimestamp(row.updated_at, timeZone),
    resolved_at: row.resolved_at === null ? null : formatTimestamp(row.resolved_at, timeZone),
  };
}

export type DisputeView = ReturnType<typeof disputeView>;
