// A statement written as text with numbered parameters (decision 290), for the money path's statements: a journal's
// CTEs and a payout's write. Kysely built their operation nodes and compiled them anew for every call, a tenth of
// a payout's CPU with the garbage it left. Built here, the text is the same for every call of one shape (so
// PostgreSQL prepares it once per connection, decision 230) and only the values change. It still runs through
// Kysely (executeQuery), so the transaction and the plugins see it.
import assert from 'node:assert/strict';
import { CompiledQuery } from 'kysely';
import { limits } from '../../limits.ts';

export class StatementText {
  readonly #values: unknown[] = [];

  /** The placeholder (`$n`) of a new parameter bound to `value`, passed to the driver as it is. */
  param(value: unknown): string {
    assert.ok(this.#values.length < limits.dbStatementParamsMax, 'a statement has at most 65,535 parameters');
    this.#values.push(value);
    return `$${this.#values.length}`;
  }

  /** The statement `text`, whose placeholders this object handed out, with their values. */
  compiled(text: string): CompiledQuery {
    return CompiledQuery.raw(text, this.#values);
  }
}

/** One column of a statement's input rows: its SQL type and its value in each row. */
export interface RowsColumn {
  readonly type: 'text' | 'bigint' | 'integer' | 'timestamptz';
  readonly values: readonly unknown[];
}

/**
 * A statement's input rows as a FROM item `alias(names)`: one array parameter a column expanded by `unnest`, so the
 * text is the same whatever the number of rows (decision 370), or, for a single row, a VALUES row of one parameter
 * a column. PGlite runs `unnest` over k arrays as a function scan of k functions even for one row (a payout's 24
 * columns: about 0.15 ms), and one row is the common case: one payout, one journal (decision 390). With
 * `ordinality` the last name is the row's number, from 1.
 */
export function rowsFrom(st: StatementText, columns: readonly RowsColumn[], alias: string, names: readonly string[], ordinality = false): string {
  const count = columns[0]?.values.length ?? 0;
  assert.ok(count >= 1 && columns.every((c) => c.values.length === count), 'every column has a value for each row, and there is a row');
  assert.equal(names.length, columns.length + (ordinality ? 1 : 0));
  const named = `${alias}(${names.join(', ')})`;
  if (count === 1) {
    const values = columns.map((c) => `${st.param(c.values[0])}::${c.type}`);
    return `(VALUES (${[...values, ...(ordinality ? ['1::bigint'] : [])].join(', ')})) AS ${named}`;
  }
  const arrays = columns.map((c) => `${st.param(c.values)}::${c.type}[]`).join(', ');
  return `unnest(${arrays})${ordinality ? ' WITH ORDINALITY' : ''} AS ${named}`;
}
