// A database is a sandbox's or production's for life (decision 930). A sandbox database holds test money: wallets
// credited by `POST /api/sandbox/wallet/credit` and sales paid with the published test cards, a test bank account on
// every account, payouts due to resolve themselves on the sandbox's schedule. Served in production, that money was
// real money a merchant could withdraw (to the test bank account, in the bank file), and the sandbox's pending
// payouts were marked paid by the due-work resolver with nothing sent. Served in the sandbox, a production database's
// real wallets took test credits and clock moves. So the first process that opens a database for writing records
// its mode in `cobro_meta`, and a process of the other mode refuses to start on it.
import { sql, type Kysely } from 'kysely';
import type { Database } from './types.ts';
import type { Mode } from '../process/config.ts';
import { StartupError } from '../process/startup-error.ts';

/** The `cobro_meta` key holding the mode a database was first opened in. */
const databaseModeKey = 'mode';

/**
 * The mode of a database from before the record, told by what it holds (decision 955): a sandbox's marks (its demo
 * account made, which every sandbox start does; a sandbox clock moved) make it a sandbox's; accounts without them
 * make it production's, since only a production start never leaves the demo mark; an empty one is `mode`'s.
 */
const modeOfUnrecorded = (mode: Mode | null) => sql`CASE
  WHEN EXISTS (SELECT 1 FROM cobro_meta WHERE key = 'demo_account_created')
    OR EXISTS (SELECT 1 FROM sandbox_clocks) THEN 'sandbox'
  WHEN EXISTS (SELECT 1 FROM accounts) THEN 'production'
  ELSE ${mode} END`;

/**
 * Records `mode` as the database's when it has none, and answers the recorded one. A database from before the
 * record is recorded as what it holds says (modeOfUnrecorded) whatever mode opens it. One statement, so two
 * processes starting at once record one mode; on a conflict it answers the row the other committed (the update
 * rewrites the value it holds): with `DO NOTHING` and a read of the table, the start that waited on the other's row
 * read with its statement's snapshot, from before that row, and found nothing (decision 999).
 */
async function recordedMode(db: Kysely<Database>, mode: Mode): Promise<string> {
  const { rows } = await sql<{ value: string }>`
    INSERT INTO cobro_meta (key, value)
    SELECT ${databaseModeKey}, ${modeOfUnrecorded(mode)}
    ON CONFLICT (key) DO UPDATE SET value = cobro_meta.value
    RETURNING value`.execute(db);
  const value = rows[0]?.value;
  if (value === undefined) throw new Error('the database mode was neither recorded nor read');
  return value;
}

/** The mode recorded, or the one the marks would record; null for a database that `mode` would record as its. */
async function modeWithoutRecording(db: Kysely<Database>): Promise<string | null> {
  const { rows } = await sql<{ value: string | null }>`
    SELECT COALESCE(
      (SELECT value FROM cobro_meta WHERE key = ${databaseModeKey}),
      ${modeOfUnrecorded(null)}) AS value`.execute(db);
  return rows[0]?.value ?? null;
}

/**
 * Refuses a start in another mode than the one the database was first opened in (decision 930). With `record`
 * false it only looks: a start checks this before its secret key, and records its mode only once the key opened
 * the database's secrets, so a start refused for its key leaves no mode behind (decision 955).
 */
export async function assertDatabaseMode(
  db: Kysely<Database>,
  mode: Mode,
  where: string,
  record: boolean,
): Promise<void> {
  const recorded = record ? await recordedMode(db, mode) : await modeWithoutRecording(db);
  if (recorded === null || recorded === mode) return;
  const holds =
    recorded === 'sandbox'
      ? 'its wallets hold test money, its accounts test bank accounts'
      : 'its wallets hold real money';
  throw new StartupError(
    `the database at ${where} is a ${recorded} database (${holds}): COBRO_MODE=${mode} needs a database of its own ` +
      `(another DATA_DIR or DATABASE_URL), or start it with COBRO_MODE=${recorded} (docs/going-live.md)`,
  );
}
