// Named prepared statements on PGlite (decision 340), as decision 230 gives PostgreSQL. PGlite's `query` sends every
// statement unnamed (Parse, Describe, Bind, Describe, Execute, Sync: six calls into the WebAssembly backend), so its
// single backend parses, analyses and plans the statement again on every call, on V8's baseline WebAssembly
// compiler (decision 170): about two thirds of a create's INSERT. A text sent a second time is parsed once under a
// name; later calls are one Bind, Execute and Sync, in one call, with the parameter types and the row description
// kept from the first. Everything else (transactions, LISTEN, the locks PGlite takes) goes through PGlite itself.
import { parse, protocol, type PGlite, type Results, type Transaction } from '@electric-sql/pglite';
import { limits } from '../../limits.ts';
import type { StatementNames } from './prepared-statements.ts';

/** SQLSTATE 0A000 with this message: a prepared SELECT whose table changed shape (a migration added a column). */
const resultTypeChanged = 'cached plan must not change result type';

type BackendMessage = Awaited<ReturnType<PGlite['execProtocolStream']>>[number];
type QueryOptions = Parameters<PGlite['query']>[2];

interface Prepared {
  /** The parameters' type oids, which choose each value's serializer, as PGlite's own query does. */
  readonly paramOids: readonly number[];
  /** Prepended to an execution's messages: a Bind/Execute answers without one. */
  readonly rowDescription: BackendMessage | null;
}

function joined(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, p) => sum + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

/** The part of PGlite that Kysely's PGliteDialect uses. */
export type PgliteForKysely = Pick<PGlite, 'closed' | 'ready' | 'waitReady' | 'close' | 'query' | 'transaction'>;

/**
 * `pglite` as Kysely's dialect sees it, its repeated statements named (StatementNames: from a text's second use,
 * bounded; at most limits.dbPreparedPerConnectionMax kept, each holding a parse tree and a plan in the backend).
 */
export function preparingPglite(pglite: PGlite, names: StatementNames): PgliteForKysely {
  const prepared = new Map<string, Prepared>();
  // A statement that could not be kept (its result type changed under it) runs unnamed from then on.
  const unusable = new Set<string>();
  const serialize = protocol.serialize;

  /** Runs under PGlite's query lock; the caller holds the transaction lock or is inside a transaction. */
  async function execute(name: string, text: string, params: readonly unknown[], options: QueryOptions): Promise<Results> {
    let statement = prepared.get(name);
    if (statement === undefined) {
      const described = await pglite.execProtocolStream(joined([
        serialize.parse({ name, text, types: [] }), serialize.describe({ type: 'S', name }), serialize.sync(),
      ]), { syncToFs: false });
      statement = {
        paramOids: parse.parseDescribeStatementResults(described),
        rowDescription: described.find((m) => m.name === 'rowDescription') ?? null,
      };
      prepared.set(name, statement);
    }
    const paramOids = statement.paramOids;
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = pglite.serializers[paramOids[i]!];
      return serializer !== undefined ? serializer(value) : String(value);
    });
    try {
      const messages = await pglite.execProtocolStream(joined([
        serialize.bind({ statement: name, values }), serialize.execute({}), serialize.sync(),
      ]), { syncToFs: false });
      const answered = statement.rowDescription === null ? messages : [statement.rowDescription, ...messages];
      return parse.parseResults(answered, pglite.parsers, options)[0] as Results;
    } catch (error) {
      if ((error as { code?: unknown }).code === '0A000' && String((error as Error).message).includes(resultTypeChanged)) unusable.add(name);
      throw error;
    }
  }

  /** The name for `text`, or null to send it as PGlite does. */
  function nameOf(text: string, params: readonly unknown[] | undefined): string | null {
    if (params === undefined) return null;
    const name = names.nameFor(text);
    if (name === null || unusable.has(name) || (!prepared.has(name) && prepared.size >= limits.dbPreparedPerConnectionMax)) return null;
    return name;
  }

  const query = async <T>(text: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> => {
    const name = nameOf(text, params);
    if (name === null) return pglite.query<T>(text, params, options);
    // As PGlite's own query outside a transaction: after any running transaction, then written to its file system.
    return pglite._runExclusiveTransaction(() => pglite._runExclusiveQuery(async () => {
      const result = await execute(name, text, params!, options);
      await pglite.syncToFs();
      return result as Results<T>;
    }));
  };

  const transaction = <T>(callback: (tx: Transaction) => Promise<T>): Promise<T> => pglite.transaction((tx) => callback({
    ...tx,
    get closed() { return tx.closed; },
    query: async <R>(text: string, params?: unknown[], options?: QueryOptions): Promise<Results<R>> => {
      const name = nameOf(text, params);
      if (name === null || tx.closed) return tx.query<R>(text, params, options);
      return pglite._runExclusiveQuery(async () => (await execute(name, text, params!, options)) as Results<R>);
    },
  }));

  return {
    get closed() { return pglite.closed; },
    get ready() { return pglite.ready; },
    get waitReady() { return pglite.waitReady; },
    close: () => pglite.close(),
    query: query as PGlite['query'],
    transaction: transaction as PGlite['transaction'],
  };
}
