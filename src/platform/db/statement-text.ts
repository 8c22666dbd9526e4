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
