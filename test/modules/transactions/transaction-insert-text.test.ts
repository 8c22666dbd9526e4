// The create's INSERT, each of its four forms written whole in transaction-insert.ts (issue 30, decision 471): their
// full text is asserted here (the statements run through every create test).
import { describe, expect, it } from 'vitest';
import {
  insertAtAccountNowText,
  insertAtGivenText,
  insertGroupAuditedText,
  insertGroupText,
} from '../../../src/modules/transactions/transaction-insert.ts';

const atGiven = `INSERT INTO transactions ("id", "account_id", "email", "order", "subject", "amount_minor", "currency",
    "payment", "expires_at", "urlreturn", "urlnotify", "additional_parameters", "extension", "extension_ref",
    "payment_key", "transaction_key", "verification_key", status, created_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, 'pending',
    $18::timestamptz, $18::timestamptz)`;

const atAccountNow = `INSERT INTO transactions ("id", "account_id", "email", "order", "subject", "amount_minor", "currency",
    "payment", "expires_at", "urlreturn", "urlnotify", "additional_parameters", "extension", "extension_ref",
    "payment_key", "transaction_key", "verification_key", status, created_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, 'pending',
    ($18::timestamptz + cobro_account_offset_ms($2) * INTERVAL '1 millisecond'),
    ($18::timestamptz + cobro_account_offset_ms($2) * INTERVAL '1 millisecond'))`;

const group = `INSERT INTO transactions ("id", "account_id", "email", "order", "subject", "amount_minor", "currency",
    "payment", "expires_at", "urlreturn", "urlnotify", "additional_parameters", "extension", "extension_ref",
    "payment_key", "transaction_key", "verification_key", status, created_at, updated_at)
  SELECT r."id", r."account_id", r."email", r."order", r."subject", r."amount_minor", r."currency", r."payment",
    r."expires_at", r."urlreturn", r."urlnotify", r."additional_parameters"::jsonb, r."extension", r."extension_ref",
    r."payment_key", r."transaction_key", r."verification_key", 'pending',
    CASE WHEN r.offset_account IS NULL THEN r.at ELSE r.at + cobro_account_offset_ms(r.offset_account) * INTERVAL '1 millisecond' END,
    CASE WHEN r.offset_account IS NULL THEN r.at ELSE r.at + cobro_account_offset_ms(r.offset_account) * INTERVAL '1 millisecond' END
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::integer[],
    $9::timestamptz[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[],
    $17::text[], $18::timestamptz[], $19::text[])
    AS r("id", "account_id", "email", "order", "subject", "amount_minor", "currency", "payment", "expires_at", "urlreturn",
      "urlnotify", "additional_parameters", "extension", "extension_ref", "payment_key", "transaction_key",
      "verification_key", at, offset_account)`;

// The group's rows with their requests' audit rows, one statement (decision 605).
const groupAudited = `WITH account_rows AS (
    SELECT id FROM accounts WHERE id = ANY($2::text[]) ORDER BY id FOR KEY SHARE),
  ins AS (
    ${group}
    WHERE (SELECT count(*) FROM account_rows) >= 0
    RETURNING id),
  audit AS (
    SELECT cobro_audit_append_chains($20::text[], $21::text[], $22::text[], $23::text[],
      $24::text[], $25::text[], $26::text[], $27::timestamptz[]) AS chains
    WHERE (SELECT count(*) FROM ins) > 0)
SELECT (SELECT count(*) FROM ins) AS written, chains FROM audit`;

describe("the create's INSERT text", () => {
  it("is written whole: one row at a given time or at its account's now, and a group's rows", () => {
    expect(insertAtGivenText).toBe(atGiven);
    expect(insertAtAccountNowText).toBe(atAccountNow);
    expect(insertGroupText).toBe(group);
    expect(insertGroupAuditedText).toBe(groupAudited);
  });
});
