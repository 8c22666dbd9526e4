// Recomputes every audit chain (decision 531): each row's position follows the one before it, names its hash as
// `prev_hash`, and hashes (cobro_audit_hash, migration 0361) to what it records; each chain's head names its last
// row, and every head has rows (decision 675). The first row that breaks a rule is the answer, by id, so an operator
// knows where the trail was changed around the trigger.
import { sql } from 'kysely';
import type { Db } from '../db/types.ts';
import './types.ts';

export type AuditVerifyResult =
  | { readonly ok: true; readonly chains: number; readonly rows: number }
  | { readonly ok: false; readonly id: string | null; readonly fault: string };

const chunkRows = 1000;

const genesisHash = '0'.repeat(64);

interface AuditRow {
  readonly id: string;
  readonly chain: string;
  /** seq as text, named apart so ORDER BY seq sorts the column, not the text. */
  readonly position: string;
  readonly prev_hash: string;
  readonly hash: string;
  /** The hash recomputed from the row's fields as they are now, by the function the append used. */
  readonly recomputed: string;
}

interface ChainState {
  chain: string;
  seq: bigint;
  hash: string;
}

async function headFault(db: Db, state: ChainState): Promise<string | null> {
  const head = await db
    .selectFrom('audit_heads')
    .select(['seq', 'hash'])
    .where('chain', '=', state.chain)
    .executeTakeFirst();
  if (head === undefined) return `chain ${state.chain} has rows but no head`;
  if (BigInt(head.seq) !== state.seq || head.hash !== state.hash)
    return `chain ${state.chain} ends at row ${state.seq} but its head names row ${head.seq}: rows were removed or the head changed`;
  return null;
}

/**
 * A head whose chain has no row left (decision 675): the walk above meets only chains that still have rows, so a
 * chain whose every row was removed shows only here. A head is written with its chain's first row, never alone.
 */
async function emptiedChainFault(db: Db): Promise<string | null> {
  const head = await db
    .selectFrom('audit_heads as h')
    .select(['h.chain', sql<string>`h.seq::text`.as('position')])
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('audit_log as l').select('l.id').whereRef('l.chain', '=', 'h.chain'))),
    )
    .orderBy('h.chain')
    .limit(1)
    .executeTakeFirst();
  if (head === undefined) return null;
  return `chain ${head.chain} has no rows but its head names row ${head.position}: rows were removed`;
}

export async function verifyAudit(db: Db): Promise<AuditVerifyResult> {
  let state: ChainState | null = null;
  let chains = 0;
  let rows = 0;
  for (;;) {
    const after: ChainState | null = state;
    const page: readonly AuditRow[] = await db
      .selectFrom('audit_log')
      .select([
        'id',
        'chain',
        sql<string>`seq::text`.as('position'),
        'prev_hash',
        'hash',
        sql<string>`cobro_audit_hash(chain, seq, id, actor_kind, actor, action, target, request_id, at, prev_hash)`.as(
          'recomputed',
        ),
      ])
      .$if(after !== null, (q) =>
        q.where((eb) =>
          eb.or([
            eb('chain', '>', after!.chain),
            eb.and([eb('chain', '=', after!.chain), eb('seq', '>', after!.seq)]),
          ]),
        ),
      )
      .orderBy('chain')
      .orderBy('seq')
      .limit(chunkRows)
      .execute();
    for (const row of page) {
      const seq = BigInt(row.position);
      if (state === null || state.chain !== row.chain) {
        if (state !== null) {
          const fault = await headFault(db, state);
          if (fault !== null) return { ok: false, id: null, fault };
        }
        state = { chain: row.chain, seq: 0n, hash: genesisHash };
        chains++;
      }
      const where = `audit row ${row.id} (chain ${row.chain}, position ${seq})`;
      if (seq !== state.seq + 1n)
        return { ok: false, id: row.id, fault: `${where} follows position ${state.seq}` };
      if (row.prev_hash !== state.hash)
        return {
          ok: false,
          id: row.id,
          fault: `${where} does not name the hash of the row before it`,
        };
      if (row.recomputed !== row.hash)
        return {
          ok: false,
          id: row.id,
          fault: `${where} was changed: its fields do not hash to its hash`,
        };
      state = { chain: row.chain, seq, hash: row.hash };
      rows++;
    }
    if (page.length < chunkRows) break;
  }
  const fault =
    (state === null ? null : await headFault(db, state)) ?? (await emptiedChainFault(db));
  if (fault !== null) return { ok: false, id: null, fault };
  return { ok: true, chains, rows };
}
