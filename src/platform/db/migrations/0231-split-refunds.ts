import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Refunds of split sales (issue 11 point 3, decision 116): what refunds took back of a marketplace payment's and
// an event sale's division, part by part, next to what it was divided into. What a part still has is its amount
// less its refunded amount; settlement, deposits and paymentData move and count only that.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE ma_payments ADD COLUMN refunded_minor BIGINT NOT NULL DEFAULT 0 CHECK (refunded_minor >= 0 AND refunded_minor <= net_minor);
    ALTER TABLE ma_payments ADD COLUMN merchant_refunded_minor BIGINT NOT NULL DEFAULT 0 CHECK (merchant_refunded_minor >= 0 AND merchant_refunded_minor <= merchant_minor);
    ALTER TABLE ma_payment_shares ADD COLUMN refunded_minor BIGINT NOT NULL DEFAULT 0 CHECK (refunded_minor >= 0 AND refunded_minor <= amount_minor);
    ALTER TABLE event_sales ADD COLUMN refunded_minor BIGINT NOT NULL DEFAULT 0 CHECK (refunded_minor >= 0 AND refunded_minor <= gross_minor);
    ALTER TABLE event_sales ADD COLUMN fee_refunded_minor BIGINT NOT NULL DEFAULT 0 CHECK (fee_refunded_minor >= 0 AND fee_refunded_minor <= fee_minor);
    ALTER TABLE event_sales ADD COLUMN net_refunded_minor BIGINT NOT NULL DEFAULT 0 CHECK (net_refunded_minor >= 0 AND net_refunded_minor <= net_minor);
    ALTER TABLE event_sales ADD COLUMN affiliate_refunded_minor BIGINT NOT NULL DEFAULT 0 CHECK (affiliate_refunded_minor >= 0 AND affiliate_refunded_minor <= affiliate_minor);
    ALTER TABLE event_sale_shares ADD COLUMN refunded_minor BIGINT NOT NULL DEFAULT 0 CHECK (refunded_minor >= 0 AND refunded_minor <= amount_minor);
    ALTER TABLE nullifications ADD COLUMN from_split_minor BIGINT NOT NULL DEFAULT 0 CHECK (from_split_minor >= 0)
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE nullifications DROP COLUMN from_split_minor;
    ALTER TABLE event_sale_shares DROP COLUMN refunded_minor;
    ALTER TABLE event_sales DROP COLUMN affiliate_refunded_minor;
    ALTER TABLE event_sales DROP COLUMN net_refunded_minor;
    ALTER TABLE event_sales DROP COLUMN fee_refunded_minor;
    ALTER TABLE event_sales DROP COLUMN refunded_minor;
    ALTER TABLE ma_payment_shares DROP COLUMN refunded_minor;
    ALTER TABLE ma_payments DROP COLUMN merchant_refunded_minor;
    ALTER TABLE ma_payments DROP COLUMN refunded_minor
  `,
  );
}
