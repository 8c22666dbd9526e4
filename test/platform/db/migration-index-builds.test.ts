// Upgrades never block a table's writes to index it (decisions 1020, 1230): from 0850 on, an index on a table the
// migration did not create itself is built CONCURRENTLY, outside a transaction. 0920 was written with a plain build
// on `transactions`, which held every payment's write for the length of a read of the whole table.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const dir = path.resolve('src/platform/db/migrations');
const firstRuled = 850;

function migrationsFrom(first: number): Array<{ name: string; text: string }> {
  return fs
    .readdirSync(dir)
    .filter((name) => /^\d{4}-.*\.ts$/.test(name) && Number(name.slice(0, 4)) >= first)
    .map((name) => ({ name, text: fs.readFileSync(path.join(dir, name), 'utf8') }));
}

/** The index builds in a migration's up, with the table each indexes. */
function indexBuilds(up: string): Array<{ statement: string; table: string; concurrent: boolean }> {
  const builds = [
    ...up.matchAll(/CREATE\s+(?:UNIQUE\s+)?INDEX\s+(CONCURRENTLY\s+)?[^;`]*?\bON\s+(\w+)/gi),
  ];
  return builds.map((m) => ({ statement: m[0], table: m[2]!, concurrent: m[1] !== undefined }));
}

describe('index builds in migrations', () => {
  it('build an index on an existing table CONCURRENTLY, outside a transaction', () => {
    const wrong: string[] = [];
    for (const { name, text } of migrationsFrom(firstRuled)) {
      const code = text.replace(/^\s*\/\/.*$/gm, '');
      const up = code.slice(0, code.indexOf('export async function down'));
      const created = new Set(
        [...up.matchAll(/CREATE\s+TABLE\s+(?:IF NOT EXISTS\s+)?(\w+)/gi)].map((m) => m[1]),
      );
      for (const build of indexBuilds(up)) {
        if (created.has(build.table)) continue;
        if (!build.concurrent) wrong.push(`${name}: ${build.statement}`);
        else if (!/export const transaction = false/.test(text))
          wrong.push(`${name}: CONCURRENTLY needs \`export const transaction = false\``);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('reads a plain build as one, so the rule above can fail', () => {
    expect(indexBuilds('CREATE INDEX x ON transactions (a)')).toEqual([
      { statement: 'CREATE INDEX x ON transactions', table: 'transactions', concurrent: false },
    ]);
    expect(
      indexBuilds('CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS y ON t (a)')[0]?.concurrent,
    ).toBe(true);
  });
});
