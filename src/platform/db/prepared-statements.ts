// Named prepared statements on PostgreSQL (decision 230). Kysely sends every query through node-postgres as an
// unnamed statement, so PostgreSQL parses, analyses and plans it again on every call: for a payout's write (one
// data-modifying CTE over five tables) that was about half of PostgreSQL's CPU per payout. A statement text this
// process sends a second time is given a name instead, so each connection parses it once and reuses its plan
// (PostgreSQL's plan cache still chooses between a generic and a custom plan per execution).
import crypto from 'node:crypto';
import type pg from 'pg';
import { limits } from '../../limits/index.ts';

/** SQLSTATE 0A000 with this message: a prepared SELECT whose table changed shape (a migration added a column). */
const resultTypeChanged = 'cached plan must not change result type';

/**
 * Names by statement text for every connection of the process: a text seen once is remembered as seen, and named
 * from its second use, so a text used once (a savepoint's, a list of one particular length) takes no slot. Both
 * maps are bounded; when the names are full, new texts simply stay unnamed.
 */
export class StatementNames {
  readonly #seenOnce = new Set<string>();
  readonly #names = new Map<string, string>();

  /** The name for `text`, or null to send it unnamed. */
  nameFor(text: string): string | null {
    const known = this.#names.get(text);
    if (known !== undefined) return known;
    if (text.length > limits.dbPreparedTextLengthMax) return null;
    if (!this.#seenOnce.has(text)) {
      if (this.#seenOnce.size >= limits.dbPreparedSeenTextsMax) this.#seenOnce.clear();
      this.#seenOnce.add(text);
      return null;
    }
    if (this.#names.size >= limits.dbPreparedNamesMax) return null;
    this.#seenOnce.delete(text);
    const name = `cobro_${crypto.createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
    this.#names.set(text, name);
    return name;
  }

  get size(): number {
    return this.#names.size;
  }
}

type QueryFn = (config: unknown, values?: unknown, callback?: unknown) => unknown;

/**
 * Makes `client` send named statements for the texts `names` names, at most limits.dbPreparedPerConnectionMax per
 * connection (each holds a parse tree and a plan in its PostgreSQL backend). Only calls with a text and a values
 * array (every Kysely query) are named; anything else (a Cursor, a simple query) passes through unchanged.
 */
export function prepareRepeatedStatements(client: pg.PoolClient, names: StatementNames): void {
  const plain = client.query.bind(client) as QueryFn;
  const prepared = new Set<string>();
  // A statement this connection could not keep (its result type changed under it) runs unnamed from then on.
  const unusable = new Set<string>();
  const named: QueryFn = (config, values, callback) => {
    if (typeof config !== 'string' || !Array.isArray(values) || callback !== undefined)
      return plain(config, values, callback);
    const name = names.nameFor(config);
    if (
      name === null ||
      unusable.has(name) ||
      (!prepared.has(name) && prepared.size >= limits.dbPreparedPerConnectionMax)
    ) {
      return plain(config, values);
    }
    prepared.add(name);
    const result = plain({ name, text: config, values }) as Promise<unknown>;
    // The caller gets the error as before (its transaction is aborted by it); the next call runs unnamed.
    result.catch((error: unknown) => {
      if (
        (error as { code?: unknown }).code === '0A000' &&
        String((error as Error).message).includes(resultTypeChanged)
      )
        unusable.add(name);
    });
    return result;
  };
  (client as unknown as { query: QueryFn }).query = named;
}
