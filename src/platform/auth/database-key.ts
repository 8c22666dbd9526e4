// The secret key is checked against the database it is meant for before anything is served (decision 690). A copy
// restored without COBRO_SECRET_KEY, or started with another one, used to start, say it was ready, make a new
// DATA_DIR/secret.key, and answer every signed request 500: the secrets it held were sealed under a key it lacked.
import path from 'node:path';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/types.ts';
import { dataDirEntries } from '../process/fs-permissions.ts';
import { StartupError } from '../process/startup-error.ts';
import {
  createSecretBox,
  existingSecretKey,
  keylessSecretBox,
  resolveSecretKey,
  type SecretBox,
} from './secrets.ts';

export interface KeySources {
  readonly secretKey: Buffer | null;
  readonly dataDir: string;
}

/** The oldest account's sealed webhook secret: one secret the database holds under its key; null when it has none. */
async function sealedSample(db: Kysely<Database>): Promise<string | null> {
  // `cobro migrate` opens a database before its first migration: no accounts table, so nothing sealed yet.
  const table = await sql<{
    name: string | null;
  }>`SELECT to_regclass('accounts')::text AS name`.execute(db);
  if (table.rows[0]?.name == null) return null;
  const oldest = await sql<{ sealed: string }>`
    SELECT webhook_secret_enc AS sealed FROM accounts ORDER BY created_at, id LIMIT 1`.execute(db);
  return oldest.rows[0]?.sealed ?? null;
}

/** How an operator gives the key (decision 815): the refusal says where it looked and what to set. */
const howToSetKey =
  'set COBRO_SECRET_KEY to it (64 hexadecimal characters: the text of the secret.key file the first start made, e.g. COBRO_SECRET_KEY=$(cat /path/to/data/secret.key)), or DATA_DIR (by default ./data of the working directory) to the directory that holds that file';

function opens(box: SecretBox, sealed: string): boolean {
  try {
    box.open(sealed);
    return true;
  } catch {
    return false;
  }
}

/**
 * The secret box for this database. A database that holds sealed secrets gets a box only from a key that opens
 * them, and never a new key file; an empty one keeps the sandbox's generated file when `mayCreate` (a read-only
 * command creates nothing and gets a box that refuses, as before).
 */
export async function databaseSecrets(
  db: Kysely<Database>,
  sources: KeySources,
  mayCreate: boolean,
): Promise<SecretBox> {
  const sealed = await sealedSample(db);
  const file = path.join(path.resolve(sources.dataDir), dataDirEntries.secretKey);
  const key =
    sealed === null && mayCreate
      ? resolveSecretKey(sources.secretKey, sources.dataDir)
      : existingSecretKey(sources.secretKey, sources.dataDir);
  if (key === null && sealed !== null && mayCreate)
    throw new StartupError(
      `the database holds secrets sealed under a secret key, and there is none: COBRO_SECRET_KEY is unset and ${file} does not exist; start with the key the data was written under: ${howToSetKey}`,
    );
  if (key === null)
    return keylessSecretBox(
      `no secret key: COBRO_SECRET_KEY is unset and ${file} does not exist (this command only reads and creates none)`,
    );
  const box = createSecretBox(key);
  if (sealed !== null && !opens(box, sealed)) {
    const source =
      sources.secretKey !== null ? 'COBRO_SECRET_KEY' : `${file} (COBRO_SECRET_KEY is unset)`;
    throw new StartupError(
      `the secret key from ${source} does not open the secrets in this database, which were sealed under another key: start with the key the data was written under: ${howToSetKey}`,
    );
  }
  return box;
}
