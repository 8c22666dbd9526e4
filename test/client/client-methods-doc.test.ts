// docs/client.md documents every method of the typed client (issue 32 point 7): its methods table is checked
// against packages/client/src/operations.ts, so a new operation, a renamed one or a wrong "Signed" fails here, and
// against CobroClient itself, so every documented method exists.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { operations, type AuthMode } from '../../packages/client/src/operations.ts';
import { CobroClient } from '../../packages/client/src/client.ts';

const doc = fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/client.md'), 'utf8');

interface DocRow {
  readonly name: string;
  readonly request: string;
  readonly signed: string;
}

/** The rows of the table under `## Methods`: method name, `METHOD path` and the Signed cell. */
function methodRows(): DocRow[] {
  const section = doc.slice(doc.indexOf('\n## Methods\n'));
  const end = section.indexOf('\n## ', 1);
  const rows = [
    ...(end === -1 ? section : section.slice(0, end)).matchAll(
      /^\| `(\w+)\([^)]*\)` \| `([A-Z]+ \/api\/[^`]+)` \| ([^|]+) \|/gm,
    ),
  ];
  return rows.map((m) => ({ name: m[1]!, request: m[2]!, signed: m[3]!.trim() }));
}

const signedCell: Readonly<Record<AuthMode, string>> = {
  sign: 'yes',
  token: 'no',
  none: 'no credentials',
};

describe('docs/client.md methods table', () => {
  const rows = methodRows();

  it('has one row per operation, no more', () => {
    expect(rows.map((r) => r.name).sort()).toEqual(Object.keys(operations).sort());
  });

  it('gives each operation its request and its signed status as operations.ts has them', () => {
    for (const row of rows) {
      const spec = operations[row.name as keyof typeof operations];
      expect(row.request, row.name).toBe(`${spec.method} ${spec.path}`);
      expect(row.signed, row.name).toBe(signedCell[spec.auth]);
    }
  });

  it('names only methods CobroClient has', () => {
    for (const row of rows)
      expect(
        typeof (CobroClient.prototype as unknown as Record<string, unknown>)[row.name],
        row.name,
      ).toBe('function');
  });

  it('lists in its Signing section exactly the signed calls it names', () => {
    const signing = doc.slice(doc.indexOf('\n## Signing\n'), doc.indexOf('\n## Methods\n'));
    const named = [...signing.matchAll(/`(\w+)`/g)]
      .map((m) => m[1]!)
      .filter((n) => n in operations);
    for (const name of named)
      expect(operations[name as keyof typeof operations].auth, name).toBe('sign');
  });
});
