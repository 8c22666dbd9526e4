// Response shapes of the reference samples (reference §9.3, §9.6): amounts as strings, account type and number
// as integers, timestamps `YYYY-MM-DD HH:MM:SS` in the service zone.
import type { AppContext } from '../../platform/context.ts';
import { formatTimestamp } from '../../platform/time/time-format.ts';
import type { PayoutRow } from './repository.ts';
import type { SummaryMovement } from './wallet-summary-statement.ts';

/**
 * The reference renders account numbers as integers. Ours stay exact: digits without a leading zero that fit a
 * safe integer become a number; anything else (leading zero, letters, dashes, 16+ digits) stays a string
 * (decision 021).
 */
function accountNumberOut(num: string): number | string {
  return /^[1-9]\d{0,14}$/.test(num) ? Number(num) : num;
}

export interface PayoutBody {
  id: string;
  phone: string;
  email: string;
  subject: string;
  amount: string;
  accountbank_rut: string;
  accountbank_name: string;
  accountbank_type: number;
  accountbank_num: number | string;
  accountbank_sbif: string;
  status: string;
  update_at: string;
}

export function payoutBody(ctx: AppContext, p: PayoutRow): PayoutBody {
  return {
    id: p.id,
    phone: p.phone,
    email: p.email,
    subject: p.subject,
    amount: BigInt(p.amount_minor).toString(),
    accountbank_rut: p.accountbank_rut,
    accountbank_name: p.accountbank_name,
    accountbank_type: Number(p.accountbank_type),
    accountbank_num: accountNumberOut(p.accountbank_num),
    accountbank_sbif: p.accountbank_sbif,
    status: p.status,
    update_at: formatTimestamp(p.updated_at, ctx.config.timeZone),
  };
}

/** A movement of the summary statement's page as the seed shows it: the statement shaped it, this formats it. */
export function movementBody(ctx: AppContext, m: SummaryMovement) {
  const timeZone = ctx.config.timeZone;
  return {
    id: m.id,
    order: m.order,
    subject: m.subject,
    created_at: formatTimestamp(m.created_at, timeZone),
    income_expense: m.income_expense,
    status: m.status,
    amount: m.amount,
    actual_amount: m.actual_amount,
    origin_liquidation: m.origin_liquidation,
    currency: m.currency,
    payout:
      m.payout_id === null
        ? null
        : {
            id: m.payout_id,
            phone: m.payout_phone,
            email: m.payout_email,
            subject: m.payout_subject,
            amount: m.payout_amount,
            accountbank_rut: m.payout_accountbank_rut,
            accountbank_name: m.payout_accountbank_name,
            accountbank_type: m.payout_accountbank_type,
            accountbank_num: accountNumberOut(m.payout_accountbank_num),
            accountbank_sbif: m.payout_accountbank_sbif,
            status: m.payout_status,
            update_at: formatTimestamp(m.payout_updated_at, timeZone),
          },
  };
}
