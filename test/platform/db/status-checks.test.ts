// Every status column of the schema has a CHECK naming its states, and those states are exactly the ones its
// TypeScript type allows (STYLE rule 9; issue 29 point 4). The columns are found in the catalog (any text column
// named status, state, outcome or kind, or *_status / *_state / *_kind), their constraints read from pg_constraint, and each compared
// with the column's type in the Kysely `Database` interface as the compiler resolves it (ColumnType and Generated
// unwrapped, null dropped). A new status column without a CHECK, a CHECK without the type's union, or a state added
// on one side only fails here. Migration 0290's refusal of stray rows is proven at the end.
import path from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { cloneTestDatabase, type TestDatabaseHandle } from '../../support/database.ts';
import {
  down as dropChecks,
  up as addChecks,
} from '../../../src/platform/db/migrations/0290-status-checks.ts';

const root = path.resolve(import.meta.dirname, '../../..');

/**
 * A column whose row type is wider than its states names the type that holds them: the transaction row keeps the
 * latest nullification's status, which the refunds module owns (transactions does not import refunds).
 */
const statesElsewhere: Readonly<Record<string, { readonly file: string; readonly type: string }>> =
  {
    'transactions.nullify_status': {
      file: 'src/modules/refunds/states.ts',
      type: 'NullificationStatus',
    },
  };

/**
 * Kind columns that name an open set on purpose, with no CHECK: a journal's kind and a wallet movement's kind are
 * written by every module that posts (their TypeScript type is `string`); `cobro ledger verify` checks journals.
 */
const openKinds: ReadonlySet<string> = new Set(['journal_entries.kind', 'wallet_movements.kind']);

let handle: TestDatabaseHandle;
beforeAll(async () => {
  handle = await cloneTestDatabase();
});
afterAll(async () => {
  await handle.close();
});

function compilerProgram(): ts.Program {
  const configPath = path.join(root, 'tsconfig.json');
  const config = ts.parseJsonConfigFileContent(
    ts.readConfigFile(configPath, ts.sys.readFile).config,
    ts.sys,
    root,
  );
  // The files that declare or merge into Database (and what they import), not the whole source: the checker only
  // needs the tables' types.
  const sources = config.fileNames.filter(
    (f) =>
      f.startsWith(path.join(root, 'src') + path.sep) &&
      /\binterface Database\b/.test(ts.sys.readFile(f) ?? ''),
  );
  return ts.createProgram({
    rootNames: [...sources, ...Object.values(statesElsewhere).map((s) => path.join(root, s.file))],
    options: { ...config.options, noEmit: true },
  });
}

/** The string literals a type allows, or the text of the first part that is not one. */
function literalsOf(
  checker: ts.TypeChecker,
  type: ts.Type,
): { values: string[] } | { wide: string } {
  const selected = type.getProperty('__select__');
  const inner = selected === undefined ? type : checker.getTypeOfSymbol(selected);
  const values: string[] = [];
  for (const part of inner.isUnion() ? inner.types : [inner]) {
    if (part.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined)) continue;
    if (!part.isStringLiteral()) return { wide: checker.typeToString(part) };
    values.push(part.value);
  }
  return { values: values.sort() };
}

function namedType(program: ts.Program, file: string, name: string): ts.Type {
  const source = program.getSourceFile(path.join(root, file));
  expect(source, file).toBeDefined();
  const checker = program.getTypeChecker();
  const decl = source!.statements.find(
    (s): s is ts.InterfaceDeclaration | ts.TypeAliasDeclaration =>
      (ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s)) && s.name.text === name,
  );
  expect(decl, `${name} in ${file}`).toBeDefined();
  return checker.getDeclaredTypeOfSymbol(checker.getSymbolAtLocation(decl!.name)!);
}

/** The states each status column's TypeScript type allows, by `table.column`. */
function typeScriptStates(
  columns: readonly string[],
): Map<string, { values: string[] } | { wide: string }> {
  const program = compilerProgram();
  const checker = program.getTypeChecker();
  const database = namedType(program, 'src/platform/db/types.ts', 'Database');
  const states = new Map<string, { values: string[] } | { wide: string }>();
  for (const column of columns) {
    const elsewhere = statesElsewhere[column];
    if (elsewhere !== undefined) {
      states.set(column, literalsOf(checker, namedType(program, elsewhere.file, elsewhere.type)));
      continue;
    }
    const [table, name] = column.split('.') as [string, string];
    const tableSymbol = database.getProperty(table);
    const columnSymbol =
      tableSymbol === undefined
        ? undefined
        : checker.getTypeOfSymbol(tableSymbol).getProperty(name);
    states.set(
      column,
      columnSymbol === undefined
        ? { wide: 'no such column in Database' }
        : literalsOf(checker, checker.getTypeOfSymbol(columnSymbol)),
    );
  }
  return states;
}

/** Each status column of the schema with the values of the CHECK constraints on it alone. */
async function catalogStates(): Promise<Map<string, string[][]>> {
  const { rows } = await sql<{ col: string; defs: string[] | null }>`
    SELECT c.relname || '.' || a.attname AS col,
      array_remove(array_agg(pg_get_constraintdef(k.oid) ORDER BY k.conname), NULL) AS defs
    FROM pg_attribute a
      JOIN pg_class c ON c.oid = a.attrelid AND c.relkind = 'r'
      JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
      LEFT JOIN pg_constraint k ON k.conrelid = c.oid AND k.contype = 'c' AND k.conkey = ARRAY[a.attnum]::smallint[]
    WHERE a.attnum > 0 AND NOT a.attisdropped AND a.atttypid = 'text'::regtype
      AND a.attname ~ '^(status|state|outcome|kind)$|_(status|state|kind)$'
    GROUP BY 1 ORDER BY 1`.execute(handle.db);
  return new Map(
    rows.map((r) => [
      r.col,
      (r.defs ?? []).map((def) =>
        [...def.matchAll(/'((?:[^']|'')*)'::text/g)].map((m) => m[1]!.replaceAll("''", "'")).sort(),
      ),
    ]),
  );
}

describe('status columns', () => {
  it('each have one CHECK naming exactly the states of their TypeScript type', async () => {
    const catalog = await catalogStates();
    // The columns this file was written against, so a catalog query that found nothing could not pass.
    for (const known of [
      'transactions.status',
      'nullifications.status',
      'transactions.nullify_status',
      'su_status_logs.initial_status',
      'su_status_logs.final_status',
      // Added or widened this session (migrations 0830, 0840; decision 989 checked the list covers them).
      'oneclick_card_removals.state',
      'oneclick_inscriptions.state',
      'fintoc_movement_findings.kind',
      'fintoc_transfers.state',
    ]) {
      expect([...catalog.keys()]).toContain(known);
    }
    const typed = typeScriptStates([...catalog.keys()]);
    const mismatches: string[] = [];
    for (const [column, checks] of catalog) {
      if (openKinds.has(column)) continue;
      const enumerating = checks.filter((values) => values.length > 0);
      const type = typed.get(column)!;
      if (enumerating.length !== 1)
        mismatches.push(`${column}: ${enumerating.length} CHECK constraints naming its states`);
      else if ('wide' in type)
        mismatches.push(`${column}: its TypeScript type includes ${type.wide}`);
      else if (JSON.stringify(enumerating[0]) !== JSON.stringify(type.values)) {
        mismatches.push(
          `${column}: CHECK ${JSON.stringify(enumerating[0])}, TypeScript ${JSON.stringify(type.values)}`,
        );
      }
    }
    expect(mismatches).toEqual([]);
  }, 60_000);

  it('migration 0290 refuses a database holding a state its CHECK would not allow, naming it, and changes nothing', async () => {
    await dropChecks(handle.db);
    await sql`INSERT INTO accounts (id, name, status, public_token_hash, public_token_enc, private_token_enc, webhook_secret_enc, created_at, updated_at)
      VALUES ('acc_stray', 'Stray', 'active', 'h', 'e', 'e', 'e', now(), now())`.execute(handle.db);
    await sql`INSERT INTO transactions (id, account_id, status, email, "order", subject, amount_minor, currency, payment_key, transaction_key, verification_key, created_at, updated_at, nullify_status)
      VALUES ('trx_stray', 'acc_stray', 'pending', 'a@b.cl', 'o', 's', 1000, 'CLP', 'pk_stray', 'tk_stray', 'vk', now(), now(), 'Completed')`.execute(
      handle.db,
    );
    await expect(addChecks(handle.db)).rejects.toThrow(
      'transactions.nullify_status holds values outside its states: "Completed"',
    );
    await sql`UPDATE transactions SET nullify_status = 'complete' WHERE id = 'trx_stray'`.execute(
      handle.db,
    );
    await addChecks(handle.db);
    await expect(
      sql`UPDATE transactions SET nullify_status = 'Completed' WHERE id = 'trx_stray'`.execute(
        handle.db,
      ),
    ).rejects.toThrow(/transactions_nullify_status_check/);
  });
});
