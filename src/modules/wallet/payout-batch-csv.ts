// The CSV of a bank payroll batch, written and read with csv-stringify and csv-parse (quoting, embedded commas and
// line breaks, a byte-order mark from a spreadsheet): the format is documented in docs/payouts-production.md.
import { stringify } from 'csv-stringify/sync';
import { parse } from 'csv-parse/sync';

/** The columns of an exported file, in order. `status` and `reason` are left empty for the bank's results. */
export const payrollColumns = [
  'batch_id',
  'payout_id',
  'kind',
  'order',
  'amount',
  'currency',
  'beneficiary_name',
  'beneficiary_rut',
  'beneficiary_bank',
  'account_type',
  'account_number',
  'email',
  'subject',
  'created_at',
  'status',
  'reason',
] as const;
type PayrollColumn = (typeof payrollColumns)[number];
export type PayrollRecord = Readonly<Record<PayrollColumn, string>>;

export function renderPayrollCsv(records: readonly PayrollRecord[]): string {
  // A name or subject starting with = + - @ is written with a leading ' so a spreadsheet shows it as text rather
  // than running it (CSV injection): the file is meant to be opened by people as well as uploaded.
  return stringify(
    records.map((r) => payrollColumns.map((c) => r[c])),
    {
      header: true,
      columns: [...payrollColumns],
      escape_formulas: true,
      record_delimiter: 'windows',
    },
  );
}

export type ParsedTable =
  | { ok: true; header: readonly string[]; rows: readonly (readonly string[])[] }
  | { ok: false; error: string };

/** A CSV with a header row; header names compared trimmed and in lower case. */
export function parseCsvTable(text: string): ParsedTable {
  let records: string[][];
  try {
    records = parse(text, {
      bom: true,
      trim: true,
      skip_empty_lines: true,
      relax_column_count: false,
    });
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  const [header, ...rows] = records;
  if (header === undefined) return { ok: false, error: 'the file is empty' };
  return { ok: true, header: header.map((h) => h.trim().toLowerCase()), rows };
}
