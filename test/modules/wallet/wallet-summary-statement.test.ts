// The Wallet summary's one statement (decision 585), written whole in wallet-summary-statement.ts: its full text is
// asserted here; what it answers is checked through the routes (wallet-get.test.ts, test/platform/db/chunked-read.test.ts
// for a page read in chunks) on both engines.
import { describe, expect, it } from 'vitest';
import { summaryPageText } from '../../../src/modules/wallet/wallet-summary-statement.ts';

const summaryPage = `SELECT b.balance, b.current_id, m.seq::text AS seq, m.id, m."order", m.subject, m.created_at,
  m.income_expense, m.status, m.amount_minor::text AS amount, m.balance_after_minor::text AS actual_amount,
  m.origin_liquidation, m.currency, p.id AS payout_id, p.phone AS payout_phone, p.email AS payout_email,
  p.subject AS payout_subject, p.amount_minor::text AS payout_amount, p.accountbank_rut AS payout_accountbank_rut,
  p.accountbank_name AS payout_accountbank_name, p.accountbank_type::integer AS payout_accountbank_type,
  p.accountbank_num AS payout_accountbank_num, p.accountbank_sbif AS payout_accountbank_sbif,
  p.status AS payout_status, p.updated_at AS payout_updated_at
FROM (SELECT
    COALESCE((SELECT a.balance_minor FROM ledger_accounts a
      WHERE a.owner = $1 AND a.code = $3 AND a.currency = $2), 0)::text AS balance,
    (SELECT w.id FROM wallet_movements w WHERE w.account_id = $1 AND w.currency = $2
      ORDER BY w.seq DESC LIMIT 1) AS current_id) b
LEFT JOIN LATERAL (SELECT * FROM wallet_movements w
    WHERE w.account_id = $1 AND w.currency = $2 AND w.seq < $6::bigint
    ORDER BY w.seq DESC LIMIT $4 OFFSET $5) m ON true
LEFT JOIN payouts p ON p.id = m.reference AND p.account_id = $1
  AND m.kind IN ('payout', 'withdrawal', 'payout_reversal', 'withdrawal_reversal')
ORDER BY m.seq DESC`;

describe("the wallet summary's statement", () => {
  it('reads the balance, the newest movement, a page of movements and their payouts in one SELECT', () => {
    expect(summaryPageText).toBe(summaryPage);
  });
});
