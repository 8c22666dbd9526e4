// Bounds of disputes (chargebacks) and the audit trail (decisions 530, 531).
import { dayMs } from './units.ts';

export const disputeLimits = {
  /** How long a merchant has to answer a chargeback: acquirers give days to a few weeks; Cobro asks for evidence in 7. */
  responseMs: 7 * dayMs,
  reasonLengthMax: 200,
  evidenceTextLengthMax: 5000,
  evidenceUrlsMax: 10,
  evidenceUrlLengthMax: 600,
  perPageDefault: 20,
  perPageMax: 100,
  /** Rows of one `cobro disputes import` file: one transaction per row, so a bound on the file, not the commit. */
  importRowsMax: 10_000,
  /** The largest `cobro disputes import` file read: 10,000 rows of a few hundred characters each. */
  importFileBytesMax: 8 * 1024 * 1024,
  /** `cobro disputes open --key`: an acquirer's case number or the operator's own name for the chargeback. */
  operatorKeyLengthMax: 100,
} as const;

export const auditLimits = {
  /** Rows `cobro audit list` and the dashboard's page show at most. */
  listRowsMax: 500,
  listRowsDefault: 50,
  /** Digits of `cobro audit list --before N`'s position: any row's, and always a bigint (decision 1120). */
  positionDigitsMax: 18,
} as const;
