// The run of `cobro secrets rekey` (decision 935): alone on the database, every secret sealed again under the new
// key in one transaction with its audit row; then, when the key was the sandbox's DATA_DIR/secret.key, that file.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import type { AppContext } from '../context.ts';
import type { Tx } from '../db/types.ts';
import { cobroSessionPrefix, sessionName } from '../db/session-name.ts';
import { dataDirEntries } from '../process/fs-permissions.ts';
import { operatorActor } from '../audit/actor.ts';
import { recordAudit, serviceChain } from '../audit/record.ts';
import { createSecretBox, existingSecretKey } from './secrets.ts';
import { resealSecrets } from './rekey.ts';

export type RekeyRun =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly reason: string };

/** A refusal found inside the transaction: thrown to roll it back, caught below. */
class RekeyRefused extends Error {}

/** Other Cobro processes connected to this PostgreSQL database (their connections' application_name). */
async function otherCobroSessions(tx: Tx): Promise<readonly string[]> {
  const others = await sql<{ name: string }>`
    SELECT DISTINCT application_name AS name FROM pg_stat_activity
    WHERE datname = current_database() AND application_name LIKE ${`${cobroSessionPrefix}%`}
      AND application_name <> ${sessionName}
    ORDER BY name`.execute(tx);
  return others.rows.map((r) => r.name);
}

/** The key file replaced whole (a new file renamed over it), so a crash leaves the old key or the new one. */
function replaceKeyFile(file: string, key: Buffer): void {
  const next = `${file}.next`;
  fs.writeFileSync(next, `${key.toString('hex')}\n`, { mode: 0o600 });
  fs.renameSync(next, file);
}

export async function rekeyDatabase(ctx: AppContext, newKey: Buffer): Promise<RekeyRun> {
  const { secretKey, dataDir } = ctx.config;
  const oldKey = existingSecretKey(secretKey, dataDir);
  if (oldKey === null) return { ok: false, reason: 'this database has no secret key to replace' };
  if (crypto.timingSafeEqual(oldKey, newKey))
    return { ok: false, reason: 'the new key is the current key: nothing to do' };
  let resealed: number;
  try {
    resealed = await ctx.db.transaction().execute(async (tx) => {
      // A process that starts meanwhile checks its key against an account's secret (decision 690): it waits here
      // and then checks against the new secrets, so none starts on the old key once this commits.
      await sql`LOCK TABLE accounts IN ACCESS EXCLUSIVE MODE`.execute(tx);
      if (ctx.engine === 'postgres') {
        const others = await otherCobroSessions(tx);
        if (others.length > 0)
          throw new RekeyRefused(
            `other Cobro processes are connected to this database (${others.join(', ')}): stop every cobro serve and worker first, since each holds the old key`,
          );
      }
      const outcome = await resealSecrets(tx, ctx.secrets, createSecretBox(newKey));
      if (!outcome.ok) throw new RekeyRefused(`${outcome.reason}; nothing was changed`);
      await recordAudit(tx, {
        chain: serviceChain,
        actor: operatorActor,
        action: 'cobro secrets rekey',
        target: null,
        requestId: null,
        at: ctx.clock.now(),
      });
      return outcome.resealed;
    });
  } catch (error) {
    if (error instanceof RekeyRefused) return { ok: false, reason: error.message };
    throw error;
  }
  const sealedUnder = `${resealed} secrets sealed again under the new key`;
  if (secretKey !== null)
    return {
      ok: true,
      text: `${sealedUnder}: start every process with COBRO_SECRET_KEY set to the new key`,
    };
  const file = path.join(path.resolve(dataDir), dataDirEntries.secretKey);
  replaceKeyFile(file, newKey);
  return { ok: true, text: `${sealedUnder}: ${file} now holds the new key` };
}
