import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Reference §3.3: the nullification callback goes to a URL the merchant sets once for the account, not per request
// (`cobro accounts set-urls ID --nullification-url URL`, decision 111). Null sends none.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    'ALTER TABLE accounts ADD COLUMN nullification_url TEXT CHECK (nullification_url IS NULL OR length(nullification_url) BETWEEN 1 AND 600);',
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, 'ALTER TABLE accounts DROP COLUMN nullification_url;');
}
