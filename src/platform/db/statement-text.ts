// A statement written as text with numbered parameters (decision 290) whose number of rows shapes its text: the
// ledger's lock of as many accounts as a journal touches (post.ts lockLedgerAccounts). Kysely built its operation
// nodes and compiled them anew for every call; here the text is the same for every call of one shape (so
// PostgreSQL prepares it once per connection, decision 230). The money statements themselves are written whole,
// each in one module (decision 471). It still runs through Kysely (executeQuery), so the transaction and the
// plugins see it.
import assert from 'node:assert/strict';
import { CompiledQuery } from 'kysely';
import { limits } from '../../limits/index.ts';

export class StatementText {
  readonly #values: unknown[] = [];

  /** The placeholder (`$n`) of a new parameter bound to `value`, passed to the driver as it is. */
  param(value: unknown): string {
    assert.ok(
      this.#values.length < limits.dbStatementParamsMax,
      'a statement has at most 65,535 parameters',
    );
    this.#values.push(value);
    return `$${this.#values.length}`;
  }

  /** The statement `text`, whose placeholders this object handed out, with their values. */
  compiled(text: string): CompiledQuery {
    return CompiledQuery.raw(text, this.#values);
  }
}
