// rowsFrom (decision 380): a statement's input rows go as a VALUES row when there is one and as one array a column
// (unnest) when there are several. Both must hand the statement the same rows, types and order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsFrom, StatementText, type RowsColumn } from '../../../src/platform/db/statement-text.ts';
import { cloneTestDatabase, type TestDatabaseHandle } from '../../support/database.ts';

interface Row { readonly name: string; readonly amount_minor: bigint; readonly at: Date; readonly n: bigint }

const rows = [
  { name: 'first', amountMinor: 9_007_199_254_740_993n, at: new Date('2026-01-02T03:04:05.678Z') },
  { name: "o'neil", amountMinor: -5n, at: new Date('2026-06-30T23:59:59.000Z') },
  { name: 'third', amountMinor: 0n, at: new Date('1999-12-31T00:00:00.000Z') },
];

describe('rowsFrom', () => {
  let handle: TestDatabaseHandle;
  beforeAll(async () => {
    handle = await cloneTestDatabase();
  });
  afterAll(async () => {
    await handle.close();
  });

  async function select(count: number): Promise<{ text: string; rows: readonly Row[] }> {
    const st = new StatementText();
    const taken = rows.slice(0, count);
    const columns: RowsColumn[] = [
      { type: 'text', values: taken.map((r) => r.name) },
      { type: 'bigint', values: taken.map((r) => r.amountMinor) },
      { type: 'timestamptz', values: taken.map((r) => r.at) },
    ];
    const text = `SELECT * FROM ${rowsFrom(st, columns, 'v', ['name', 'amount_minor', 'at', 'n'], true)} ORDER BY v.n`;
    const result = await handle.db.executeQuery<Row>(st.compiled(text));
    return { text, rows: result.rows };
  }

  it('gives one row as a VALUES row and several through unnest, with the same values, types and order', async () => {
    const one = await select(1);
    const three = await select(3);
    expect(one.text).toContain('VALUES');
    expect(three.text).toContain('unnest');
    expect(one.rows).toEqual([{ name: 'first', amount_minor: rows[0]!.amountMinor, at: rows[0]!.at, n: 1n }]);
    expect(three.rows).toEqual(rows.map((r, i) => ({ name: r.name, amount_minor: r.amountMinor, at: r.at, n: BigInt(i + 1) })));
  });

  it('refuses no rows and columns of different lengths', () => {
    const st = new StatementText();
    expect(() => rowsFrom(st, [{ type: 'text', values: [] }], 'v', ['a'])).toThrow();
    expect(() => rowsFrom(st, [{ type: 'text', values: ['a'] }, { type: 'text', values: ['a', 'b'] }], 'v', ['a', 'b'])).toThrow();
  });
});
