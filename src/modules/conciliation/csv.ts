// The conciliation report as CSV for accountants (decision 121): one row per settled transaction with its batch's
// columns repeated, written by csv-stringify. UTF-8 with a byte order mark and `;` between fields, so Excel in a
// Spanish locale (whose list separator is `;`) opens it in columns with accents intact; CRLF line ends (RFC 4180).
import { stringify } from 'csv-stringify/sync';
import type { ConciliationBatch } from './report.ts';

export const csvMediaType = 'text/csv; charset=utf-8';

export const csvColumns = [
  'batch_id',
  'batch_created_at',
  'batch_amount_available',
  'batch_amount_deposit',
  'batch_status',
  'destiny',
  'currency',
  'wallet',
  'transaction_id',
  'payment_key',
  'order',
  'start',
  'end',
  'deposit_date',
  'amount',
  'fee',
  'amount_deposit',
  'media',
] as const;

/**
 * A text cell Excel would read as a formula (`=`, `+`, `-`, `@`, tab, CR first) gets a leading apostrophe, so a
 * merchant's order text can never run as a formula on an accountant's machine (CSV injection). Amounts are numbers
 * and written as they are.
 */
function text(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

export function conciliationCsv(batches: readonly ConciliationBatch[]): string {
  const rows = batches.flatMap((b) =>
    b.transaction.map((l) => [
      text(b.id),
      b.created_at,
      b.amount_available,
      b.amount_deposit,
      b.status,
      text(b.destiny),
      text(b.currency),
      b.wallet ?? '',
      text(l.transaction_id),
      text(l.payment_key),
      text(l.order),
      l.start,
      l.end,
      l.deposit_date,
      l.amount,
      l.fee,
      l.amount_deposit,
      text(l.media),
    ]),
  );
  return stringify(rows, {
    bom: true,
    header: true,
    columns: [...csvColumns],
    delimiter: ';',
    record_delimiter: 'windows',
  });
}

/** The file name a download suggests: the range it covers. */
export function csvFileName(dateInit: string, dateEnd: string): string {
  return `conciliation-${dateInit}-${dateEnd}.csv`;
}
