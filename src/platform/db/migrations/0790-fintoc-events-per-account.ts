import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 965: Fintoc sends one event, with one id, to every webhook endpoint of the organisation, so two Cobro
// accounts set up with the same Fintoc keys each receive it. An event id is applied once per account: the other
// account's copy, recorded first, no longer makes this account's a duplicate.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE fintoc_events DROP CONSTRAINT fintoc_events_pkey;
    ALTER TABLE fintoc_events ADD PRIMARY KEY (account_id, event_id)
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    DELETE FROM fintoc_events a USING fintoc_events b
      WHERE a.event_id = b.event_id AND a.received_at > b.received_at;
    DELETE FROM fintoc_events a USING fintoc_events b
      WHERE a.event_id = b.event_id AND a.received_at = b.received_at AND a.account_id > b.account_id;
    ALTER TABLE fintoc_events DROP CONSTRAINT fintoc_events_pkey;
    ALTER TABLE fintoc_events ADD PRIMARY KEY (event_id)
  `,
  );
}
