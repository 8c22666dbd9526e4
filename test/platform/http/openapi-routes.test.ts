// GET /api/openapi.json lists exactly the operations the router holds (issue 31): every /api route the modules
// register, as recorded by an onRoute hook, is a documented operation, and every documented operation is routed,
// the reference's trailing-slash spellings (decision 440) included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { modulesRecordingRoutes } from '../../support/route-recorder.ts';

let t: TestApp;
/** `METHOD /api/path/{param}` of every route the router holds, as the modules registered them. */
const routed = new Set<string>();
let documented: Map<string, Record<string, unknown>>;

const openApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}');

beforeAll(async () => {
  const modules = modulesRecordingRoutes((r) => {
    for (const method of Array.isArray(r.method) ? r.method : [r.method]) {
      if (method !== 'HEAD' && r.url.startsWith('/api/'))
        routed.add(`${method} ${openApiPath(r.url)}`);
    }
  });
  t = await startTestApp({ modules });
  const doc = (await t.call(null, { method: 'GET', url: '/api/openapi.json' })).json() as {
    paths: Record<string, Record<string, Record<string, unknown>>>;
  };
  documented = new Map();
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith('/api/')) continue;
    for (const [method, op] of Object.entries(item))
      documented.set(`${method.toUpperCase()} ${path}`, op);
  }
});
afterAll(async () => {
  await t.close();
});

describe("the OpenAPI document against the router's table", () => {
  it('documents every routed /api operation', () => {
    expect(routed.size).toBeGreaterThan(40);
    expect([...routed].filter((k) => !documented.has(k))).toEqual([]);
  });

  it('documents no operation the router does not answer; the trailing-slash spellings are aliases of routed ones', () => {
    const aliases = [...documented].filter(([, op]) => op['x-cobro-alias-of'] !== undefined);
    expect(
      [...documented.keys()].filter((k) => !routed.has(k) && !aliases.some(([a]) => a === k)),
    ).toEqual([]);
    for (const [key, op] of aliases) {
      expect(routed.has(op['x-cobro-alias-of'] as string), key).toBe(true);
      const [method, path] = key.split(' ') as ['GET', string];
      expect(
        t.app.hasRoute({ method, url: path }) || t.app.findRoute({ method, url: path }) !== null,
        key,
      ).toBe(true);
    }
  });

  it("lists the trailing-slash operations the reference's clients call", () => {
    for (const path of [
      '/api/transaction/',
      '/api/suclient/',
      '/api/suplan/',
      '/api/sususcription/',
      '/api/sutransaction/',
      '/api/suscriptionsdeletecards/',
    ]) {
      expect(documented.get(`POST ${path}`)?.['x-cobro-alias-of'], path).toBe(
        `POST ${path.slice(0, -1)}`,
      );
    }
  });

  it('documents GET /api/mall/{id} with Bearer alone, a Sign optional', () => {
    expect(documented.get('GET /api/mall/{id}')?.security).toEqual([
      { bearer: [] },
      { bearer: [], sign: [] },
    ]);
  });
});
