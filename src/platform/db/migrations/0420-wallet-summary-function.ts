import { sql, type Kysely } from 'kysely';

// Decision 585: the Wallet summary (GET /api/wallet, /api/wallet/list, /api/wallet/{id}) in one call: the balance from
// the wallet's ledger account row, the newest movement's id (`current_id`), a page of movements newest first by
// wallet_movements_account (account_id, currency, seq), and the payout each payout movement names (a payout, a
// withdrawal and their reversals name it by id in `reference`), joined in. One row a movement, every column as the
// answer shows it (amounts as text, the account type an integer); an empty page answers one row whose movement
// columns are null, for the balance. `p_seq_before` bounds the page by keyset (only movements older than it): a page
// read in chunks (chunked-read.ts) starts each later chunk after the previous chunk's last movement.
// A PL/pgSQL function so its statement is planned once per connection: PGlite prepares nothing (every statement
// sent is parsed and planned again) and this join cost twice the two reads it replaced there.
// Created with one statement of its own, not through runSql, so its body may end lines with semicolons.
/** Exported for 0480's `down`, which puts this function back (decision 1085). */
export const summaryFunction = `
CREATE FUNCTION cobro_wallet_summary(p_account_id TEXT, p_currency TEXT, p_limit INTEGER, p_offset INTEGER,
    p_seq_before BIGINT)
  RETURNS TABLE (balance TEXT, current_id TEXT, seq TEXT, id TEXT, "order" TEXT, subject TEXT,
    created_at TIMESTAMPTZ, income_expense TEXT, status TEXT, amount TEXT, actual_amount TEXT,
    origin_liquidation TEXT, currency TEXT, payout_id TEXT, payout_phone TEXT, payout_email TEXT,
    payout_subject TEXT, payout_amount TEXT, payout_accountbank_rut TEXT, payout_accountbank_name TEXT,
    payout_accountbank_type INTEGER, payout_accountbank_num TEXT, payout_accountbank_sbif TEXT,
    payout_status TEXT, payout_updated_at TIMESTAMPTZ)
  LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
    SELECT b.balance, b.current_id, m.seq::text AS seq, m.id, m."order", m.subject, m.created_at,
      m.income_expense, m.status, m.amount_minor::text AS amount, m.balance_after_minor::text AS actual_amount,
      m.origin_liquidation, m.currency, p.id AS payout_id, p.phone AS payout_phone, p.email AS payout_email,
      p.subject AS payout_subject, p.amount_minor::text AS payout_amount, p.accountbank_rut AS payout_accountbank_rut,
      p.accountbank_name AS payout_accountbank_name, p.accountbank_type::integer AS payout_accountbank_type,
      p.accountbank_num AS payout_accountbank_num, p.accountbank_sbif AS payout_accountbank_sbif,
      p.status AS payout_status, p.updated_at AS payout_updated_at
    FROM (SELECT
        COALESCE((SELECT a.balance_minor FROM ledger_accounts a
          WHERE a.owner = p_account_id AND a.code = 'wallet_available' AND a.currency = p_currency), 0)::text AS balance,
        (SELECT w.id FROM wallet_movements w WHERE w.account_id = p_account_id AND w.currency = p_currency
          ORDER BY w.seq DESC LIMIT 1) AS current_id) b
    LEFT JOIN LATERAL (SELECT * FROM wallet_movements w
        WHERE w.account_id = p_account_id AND w.currency = p_currency AND w.seq < p_seq_before
        ORDER BY w.seq DESC LIMIT p_limit OFFSET p_offset) m ON true
    LEFT JOIN payouts p ON p.id = m.reference AND p.account_id = p_account_id
      AND m.kind IN ('payout', 'withdrawal', 'payout_reversal', 'withdrawal_reversal')
    ORDER BY m.seq DESC;
END $$`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql.raw(summaryFunction).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP FUNCTION cobro_wallet_summary(TEXT, TEXT, INTEGER, INTEGER, BIGINT)`.execute(db);
}
