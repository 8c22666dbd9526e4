// Each CobroClient method's answer type (src/modules/api-types.ts, expanded into packages/client/src/types.ts) must
// be the schema the server documents for that operation's HTTP 200 in GET /api/openapi.json (decision 925): a method
// typed with another route's shape compiles and lies to the merchant's code.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../../packages/client/src/operations.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

type Schemas = Record<string, unknown>;
type OpenApiDocument = {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>
  >;
};

const root = path.resolve(import.meta.dirname, '../..');
const apiTypes = fs.readFileSync(path.join(root, 'src/modules/api-types.ts'), 'utf8');
const clientText = fs.readFileSync(path.join(root, 'packages/client/src/client.ts'), 'utf8');

/** `import type { A, B as C } from './x.ts'` → local name → [module, exported name]. */
function importsOf(text: string): Map<string, readonly [string, string]> {
  const found = new Map<string, readonly [string, string]>();
  for (const m of text.matchAll(/import type \{([^}]*)\} from '(\.[^']+)'/g)) {
    for (const part of (m[1] ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== '')) {
      const [exported, local] = part.split(/\s+as\s+/) as [string, string | undefined];
      found.set(local ?? exported, [m[2] ?? '', exported]);
    }
  }
  return found;
}

async function schemaOfType(typeName: string): Promise<unknown> {
  const m = new RegExp(`export type ${typeName} = Static<\\(?typeof (\\w+)\\)?(\\[200\\])?>;`).exec(
    apiTypes,
  );
  if (m === null) throw new Error(`${typeName} is not a Static<> in api-types.ts`);
  const [module, exported] = importsOf(apiTypes).get(m[1] ?? '') ?? [];
  if (module === undefined || exported === undefined) throw new Error(`no import for ${m[1]}`);
  const loaded = (await import(path.join(root, 'src/modules', module))) as Schemas;
  const schema = loaded[exported];
  return m[2] === undefined ? schema : (schema as Record<number, unknown>)[200];
}

/** A schema as @fastify/swagger renders it (see client-coverage.test.ts), descriptions left out. */
function asDocumented(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(asDocumented);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'description') continue;
    if (key === 'const') out.enum = [value];
    else if (key === 'patternProperties' && Object.keys(value as object).join() === '^.*$')
      out.additionalProperties = asDocumented((value as Record<string, unknown>)['^.*$']);
    else out[key] = asDocumented(value);
  }
  return out;
}

let t: TestApp;
let doc: OpenApiDocument;
beforeAll(async () => {
  t = await startTestApp();
  doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
});
afterAll(async () => {
  await t.close();
});

describe('client answer types', () => {
  it('type each method with the schema the server documents for its HTTP 200', async () => {
    const typed = [...clientText.matchAll(/#call<T\.(\w+)>\('(\w+)'/g)];
    expect(typed.length).toBeGreaterThanOrEqual(40);
    const mismatched: string[] = [];
    for (const [, typeName, name] of typed) {
      const op = operations[name as keyof typeof operations];
      const documented =
        doc.paths[op.path]?.[op.method.toLowerCase()]?.responses['200']?.content?.[
          'application/json'
        ]?.schema;
      const schema = await schemaOfType(typeName ?? '');
      if (
        JSON.stringify(asDocumented(JSON.parse(JSON.stringify(schema)))) !==
        JSON.stringify(asDocumented(documented))
      )
        mismatched.push(`${name}: ${typeName}`);
    }
    expect(mismatched).toEqual([]);
  }, 60_000);
});
