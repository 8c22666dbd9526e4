// Keeps the client in step with the server: every /api operation in the served OpenAPI document has a client
// method with the same auth mode, and the shapes the client has to mirror match the document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CobroClient } from '../../packages/client/src/client.ts';
import { operations, type AuthMode } from '../../packages/client/src/operations.ts';
import { AccountResponse } from '../../src/modules/accounts/schemas.ts';
import {
  AdvanceBody as ClockAdvanceBody,
  AdvanceResponse as ClockAdvanceResponse,
} from '../../src/modules/sandbox/schemas.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

interface OpenApiOperation {
  readonly security?: ReadonlyArray<Record<string, unknown>>;
  readonly requestBody?: { content: Record<string, { schema: unknown }> };
  readonly responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}
type OpenApiDocument = { paths: Record<string, Record<string, OpenApiOperation>> };

const httpMethods = new Set(['get', 'post', 'put', 'delete', 'patch']);

let t: TestApp;
let doc: OpenApiDocument;
beforeAll(async () => {
  t = await startTestApp();
  const res = await t.app.inject({ method: 'GET', url: '/api/openapi.json' });
  expect(res.statusCode).toBe(200);
  doc = res.json();
});
afterAll(async () => {
  await t.close();
});

function authOf(op: OpenApiOperation): AuthMode {
  const schemes = (op.security ?? []).flatMap((requirement) => Object.keys(requirement));
  return schemes.includes('sign') ? 'sign' : schemes.includes('bearer') ? 'token' : 'none';
}

function documentOperations(): Map<string, AuthMode> {
  const found = new Map<string, AuthMode>();
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith('/api/') || path === '/api/openapi.json') continue;
    for (const [method, op] of Object.entries(item)) {
      // The reference's trailing-slash spellings are the same operations: the client calls the canonical path.
      if (
        httpMethods.has(method) &&
        (op as { 'x-cobro-alias-of'?: string })['x-cobro-alias-of'] === undefined
      ) {
        found.set(`${method.toUpperCase()} ${path}`, authOf(op));
      }
    }
  }
  return found;
}

function operationOf(key: string): OpenApiOperation {
  const [method, path] = key.split(' ') as [string, string];
  const op = doc.paths[path]?.[method.toLowerCase()];
  if (op === undefined) throw new Error(`${key} is not in the OpenAPI document`);
  return op;
}

/**
 * A schema as the document renders it: @fastify/swagger writes `const` as a one-value `enum` and a TypeBox
 * Record's catch-all pattern as `additionalProperties`; the rest must be equal.
 */
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

function withoutDescriptions(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutDescriptions);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([k]) => k !== 'description')
      .map(([k, v]) => [k, withoutDescriptions(v)]),
  );
}

const json = (schema: unknown) => withoutDescriptions(JSON.parse(JSON.stringify(schema)));

describe('client coverage of the OpenAPI document', () => {
  it('has one operation entry for every /api operation the server documents, with the same auth mode', () => {
    const documented = documentOperations();
    const client = new Map<string, AuthMode>(
      Object.values(operations).map((op) => [`${op.method} ${op.path}`, op.auth] as const),
    );
    expect([...client.keys()].sort()).toEqual([...documented.keys()].sort());
    for (const [key, auth] of documented)
      expect({ key, auth: client.get(key) }).toEqual({ key, auth });
    // A sanity floor: the document really lists the routes (a broken document must not pass vacuously).
    expect(documented.size).toBeGreaterThanOrEqual(27);
  });

  it('has a CobroClient method for every operation entry and no method without one', () => {
    const methods = Object.getOwnPropertyNames(CobroClient.prototype).filter(
      (name) => name !== 'constructor',
    );
    expect(methods.sort()).toEqual(Object.keys(operations).sort());
  });

  it('types GET /api/account and POST /api/sandbox/clock/advance with the schemas the server serves', () => {
    const account = operationOf('GET /api/account');
    expect(json(account.responses['200']?.content?.['application/json']?.schema)).toEqual(
      json(asDocumented(AccountResponse)),
    );
    const advance = operationOf('POST /api/sandbox/clock/advance');
    expect(json(advance.requestBody?.content['application/json']?.schema)).toEqual(
      json(asDocumented(ClockAdvanceBody)),
    );
    expect(json(advance.responses['200']?.content?.['application/json']?.schema)).toEqual(
      json(asDocumented(ClockAdvanceResponse)),
    );
  });

  it('notices a route missing from the client (the comparison is not vacuous)', () => {
    const documented = documentOperations();
    documented.set('GET /api/imaginary', 'token');
    const client = Object.values(operations)
      .map((op) => `${op.method} ${op.path}`)
      .sort();
    expect(client).not.toEqual([...documented.keys()].sort());
  });
});
