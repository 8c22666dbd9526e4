// Service fee per merchant account and payment method (supplement §4.3). A fee is a percentage in hundredths of a
// percent (basis points) plus a fixed amount, rounded half up, never more than the gross. No fee configured
// means no fee (docs/decisions/031-fees-and-settlement.md).
import assert from 'node:assert/strict';
import type { DbOrTx } from '../../platform/db/types.ts';
import './types.ts';
import { limits } from '../../limits/index.ts';

export interface FeeRule {
  readonly percentBp: number;
  readonly fixedMinor: bigint;
}

export const defaultFeeRule: FeeRule = { percentBp: 0, fixedMinor: 0n };

/** Fee for an amount under a rule: round_half_up(amount * bp / 10000) + fixed, capped at the amount. */
export function computeFeeMinor(amountMinor: bigint, rule: FeeRule): bigint {
  assert.ok(amountMinor > 0n, 'fee of a positive amount');
  assert.ok(
    Number.isInteger(rule.percentBp) &&
      rule.percentBp >= 0 &&
      rule.percentBp <= limits.feePercentBpMax,
    'percent in basis points',
  );
  assert.ok(rule.fixedMinor >= 0n, 'fixed fee is not negative');
  const percentPart = (amountMinor * BigInt(rule.percentBp) + 5_000n) / 10_000n;
  const fee = percentPart + rule.fixedMinor;
  return fee > amountMinor ? amountMinor : fee;
}

export async function feeRuleFor(db: DbOrTx, accountId: string, payment: number): Promise<FeeRule> {
  const row = await db
    .selectFrom('account_fees')
    .select(['percent_bp', 'fixed_minor'])
    .where('account_id', '=', accountId)
    .where('payment', '=', payment)
    .executeTakeFirst();
  return row === undefined
    ? defaultFeeRule
    : { percentBp: row.percent_bp, fixedMinor: BigInt(row.fixed_minor) };
}

export async function setFeeRule(
  db: DbOrTx,
  accountId: string,
  payment: number,
  rule: FeeRule,
  at: Date,
): Promise<void> {
  await db
    .insertInto('account_fees')
    .values({
      account_id: accountId,
      payment,
      percent_bp: rule.percentBp,
      fixed_minor: rule.fixedMinor,
      updated_at: at,
    })
    .onConflict((oc) =>
      oc
        .columns(['account_id', 'payment'])
        .doUpdateSet({ percent_bp: rule.percentBp, fixed_minor: rule.fixedMinor, updated_at: at }),
    )
    .execute();
}

/** Parses `2.95` (at most two decimals, 0..100) into basis points without floating point; null when invalid. */
export function parsePercentBp(text: string): number | null {
  const m = /^(\d{1,3})(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (m === null) return null;
  const bp = Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
  return bp <= limits.feePercentBpMax ? bp : null;
}
