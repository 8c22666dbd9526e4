// Response shapes of the reference samples (reference §9.3, §9.6): amounts as strings, account type and number
// as integers, timestamps `YYYY-MM-DD HH:MM:SS` in the service zone.
import assert from 'node:assert/strict';
import type { Selectable } from 'kysely';
import type { AppContext } from '../../platform/context.ts';
import { formatTimestamp } from '../../platform/time/time-format.ts';
import type { WalletMovementTable } from './movements.ts';
import type { PayoutRow } from './repository.ts';

/**
 * The reference renders account numbers as integers. Ours stay exact: digits without a leading zero that fit a
 * safe integer become a number; anything else (leading zero, letters, dashes, 16+ digits) stays a string
 * (decision 021).
 */
function accountNumberOut(num: string): number | string {
  return /^[1-9]\d{0,14}$/.test(num) ? Number(num) : num;
}

export function safeInteger(value: bigint): number {
  assert.ok(
    value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= -BigInt(Number.MAX_SAFE_INTEGER),
    'amount fits a JSON integer',
  );
  return Number(value);
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

export function movementBody(
  ctx: AppContext,
  m: Selectable<WalletMovementTable>,
  payout: PayoutRow | undefined,
) {
  return {
    id: m.id,
    order: m.order,
    subject: m.subject,
    created_at: formatTimestamp(m.created_at, ctx.config.timeZone),
    income_expense: m.income_expense,
    status: m.status,
    amount: BigInt(m.amount_minor).toString(),
    actual_amount: BigInt(m.balance_after_minor).toString(),
    origin_liquidation: m.origin_liquidation,
    currency: m.currency,
    payout: payout === undefined ? null : payoutBody(ctx, payout),
  };
}
