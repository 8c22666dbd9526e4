// Decision 700 (a guard, passing before it, from review-contract): each CobroClient method's declared answer type
// (and request body type) is the schema the server documents for that operation's 200 (and request body), for
// every method, not only the two client-coverage checks.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../../packages/client/src/operations.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

const root = path.resolve(import.meta.dirname, '../..');
type Json = Record<string, any>;

let t: TestApp;
let doc: Json;
beforeAll(async () => {
  t = await startTestApp();
  doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
});
afterAll(async () => {
  await t.close();
});

function asDocumented(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(asDocumented);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'const') out.enum = [value];
    else if (key === 'patternProperties' && Object.keys(value as object).join() === '^.*$')
      out.additionalProperties = asDocumented((value as Record<string, unknown>)['^.*$']);
    else out[key] = asDocumented(value);
  }
  return out;
}
const drop = new Set(['description', 'examples', 'example', 'default', '$id', 'title']);
function bare(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(bare);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([k]) => !drop.has(k))
      .map(([k, v]) => [k, bare(v)]),
  );
}
const norm = (s: unknown) => bare(asDocumented(JSON.parse(JSON.stringify(s))));

/** alias -> [module file, schema export name, indexed by [200]?] from src/modules/api-types.ts. */
async function typeSchemas(): Promise<Map<string, unknown>> {
  const text = fs.readFileSync(path.join(root, 'src/modules/api-types.ts'), 'utf8');
  const moduleOf = new Map<string, { file: string; name: string }>();
  for (const m of text.matchAll(/import type \{([^}]*)\} from '([^']+)'/g)) {
    for (const part of m[1]!
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const [name, alias] = part.split(/\s+as\s+/);
      moduleOf.set((alias ?? name)!.trim(), { file: m[2]!, name: name!.trim() });
    }
  }
  const out = new Map<string, unknown>();
  for (const m of text.matchAll(
    /export type (\w+) = (?:Partial<)?Static<(?:\(typeof (\w+)\)\[200\]|typeof (\w+))>/g,
  )) {
    const local = (m[2] ?? m[3])!;
    const where = moduleOf.get(local);
    if (where === undefined) continue;
    const mod = await import(path.join(root, 'src/modules', where.file));
    const schema = mod[where.name];
    out.set(m[1]!, m[2] !== undefined ? schema[200] : schema);
  }
  return out;
}

/** method -> { op, answer, input } from packages/client/src/client.ts. */
function clientMethods() {
  const text = fs.readFileSync(path.join(root, 'packages/client/src/client.ts'), 'utf8');
  const out: Array<{ method: string; op: string; answer: string; input: string | null }> = [];
  for (const m of text.matchAll(
    /\n {2}(\w+)\(([^)]*)\) \{\n\s*return this\.#call<(?:T\.)?(\w+)>\(\s*'(\w+)'/g,
  )) {
    const input = /body: T\.(\w+)/.exec(m[2]!)?.[1] ?? null;
    out.push({ method: m[1]!, op: m[4]!, answer: m[3]!, input });
  }
  return out;
}

describe('CobroClient types against GET /api/openapi.json', () => {
  it('declares for every method the 200 body and request body the server documents', async () => {
    const schemas = await typeSchemas();
    const methods = clientMethods();
    expect(methods.length).toBeGreaterThanOrEqual(50);
    const mismatches: string[] = [];
    for (const { method, op, answer, input } of methods) {
      const spec = operations[op as keyof typeof operations];
      const documented = doc.paths[spec.path]?.[spec.method.toLowerCase()];
      if (answer !== 'string') {
        const served = documented?.responses?.['200']?.content?.['application/json']?.schema;
        const declared = schemas.get(answer);
        if (declared === undefined) mismatches.push(`${method}: no schema for T.${answer}`);
        else if (JSON.stringify(norm(declared)) !== JSON.stringify(bare(served)))
          mismatches.push(
            `${method}: T.${answer} is not the 200 schema of ${spec.method} ${spec.path}`,
          );
      }
      if (input !== null) {
        const served = documented?.requestBody?.content?.['application/json']?.schema;
        const declared = schemas.get(input);
        if (declared === undefined) mismatches.push(`${method}: no schema for T.${input}`);
        else if (JSON.stringify(norm(declared)) !== JSON.stringify(bare(served)))
          mismatches.push(
            `${method}: T.${input} is not the request body of ${spec.method} ${spec.path}`,
          );
      }
    }
    expect(mismatches).toEqual([]);
  });
});
