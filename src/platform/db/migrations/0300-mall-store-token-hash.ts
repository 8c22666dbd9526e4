import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 440: a mall line kept the store's token (a public token, a credential) in plain text, and the mall's
// answer and callback sent it back. A line now keeps the token's SHA-256, as accounts keep their public tokens
// (nothing needs the token again: the line names its store account), and answers carry the store's name instead.
// The callbacks still in the outbox and the answers kept for idempotency replays are rewritten the same way.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE mall_lines ADD COLUMN merchant_hash TEXT;
    UPDATE mall_lines SET merchant_hash = encode(sha256(convert_to(merchant, 'UTF8')), 'hex');
    ALTER TABLE mall_lines ALTER COLUMN merchant_hash SET NOT NULL;
    ALTER TABLE mall_lines DROP COLUMN merchant;
    UPDATE notifications n SET payload = jsonb_set(n.payload, '{individual_orders}', (
      SELECT coalesce(jsonb_agg(o || jsonb_build_object('merchant', coalesce(l.store_name, '')) ORDER BY e.ord), '[]'::jsonb)
      FROM jsonb_array_elements(n.payload -> 'individual_orders') WITH ORDINALITY AS e(o, ord)
      LEFT JOIN mall_lines l ON l.transaction_id = o ->> 'transaction_id'))
    WHERE n.event_type = 'mall.result' AND jsonb_typeof(n.payload -> 'individual_orders') = 'array';
    UPDATE idempotency_keys k SET body = jsonb_set(k.body::jsonb, '{individual_orders}', (
      SELECT coalesce(jsonb_agg(o || jsonb_build_object('merchant', coalesce(l.store_name, '')) ORDER BY e.ord), '[]'::jsonb)
      FROM jsonb_array_elements(k.body::jsonb -> 'individual_orders') WITH ORDINALITY AS e(o, ord)
      LEFT JOIN malls m ON m.id = k.body::jsonb ->> 'id'
      LEFT JOIN mall_lines l ON l.mall_id = m.id AND l.position = e.ord - 1))::text
    WHERE k.method = 'POST' AND k.path LIKE '/api/mall%' AND k.state = 'done' AND k.body LIKE '%"individual_orders"%'
  `,
  );
}

export async function down(): Promise<void> {
  throw new Error('0300 keeps only hashes of the store tokens: the tokens cannot be brought back');
}
