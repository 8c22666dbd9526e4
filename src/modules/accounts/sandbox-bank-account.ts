// The sandbox's test bank account (decision 755): every account a sandbox deployment creates gets one, so that an
// integration can exercise POST /api/wallet/withdraw as it exercises payouts, without an operator's
// `cobro accounts set-bank`. Withdrawals to it resolve by amount like sandbox payouts (1000, 2000, 3000 succeed;
// 1500, 2500, 3500 are rejected). An operator may replace it with set-bank as in production.
// The row is the wallet's table (src/modules/wallet/types.ts), written here so that accounts, which the wallet
// reads, need not import it back.
import type { DbOrTx } from '../../platform/db/types.ts';

/** Banco de Chile (0001), a checking account, the sandbox's bank-login RUT 11.111.111-1 (supplement §6.2). */
const sandboxBankAccount = {
  currency: 'CLP',
  sbif: '0001',
  type: '1',
  num: '000123456789',
  rut: '111111111',
} as const;

/** Gives a new sandbox account its test bank account, in the caller's transaction; the holder is the account. */
export async function giveSandboxBankAccount(
  db: DbOrTx,
  accountId: string,
  holderName: string,
  now: Date,
): Promise<void> {
  await db
    .insertInto('account_bank_accounts')
    .values({
      account_id: accountId,
      ...sandboxBankAccount,
      holder_name: holderName,
      updated_at: now,
    })
    .execute();
}
