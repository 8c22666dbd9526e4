// The API docs are built on their first request (decision 310): the root forwards /docs to a docs app of their own
// and answers /api/openapi.json from it. What a client sees must be what it saw when Swagger UI's routes were the
// root's: every URL Swagger UI serves is reachable, files keep their caching headers, and what is not there or
// refused gets the root's envelopes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteOptions } from 'fastify';
import { buildDocsApp, docsAppUrls } from '../../../src/platform/http/openapi-docs.ts';
import { docsUrls } from '../../../src/platform/http/openapi.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';

type Json = Record<string, any>;
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('/docs, built on first use', () => {
  it('forwards every URL Swagger UI serves', async () => {
    const docs = await buildDocsApp(
      { routes: [], sharedSchemas: [] },
      'http://127.0.0.1',
      'sandbox',
    );
    try {
      const served = docsAppUrls(docs);
      expect(served).toEqual(
        expect.arrayContaining([
          '/docs',
          '/docs/json',
          '/docs/yaml',
          '/docs/static/swagger-initializer.js',
          '/docs/static/*',
        ]),
      );
      // A Swagger UI release that adds a URL outside these fails here rather than answering 404 in production.
      const unreachable = served.filter((url) => {
        const found = t.app.findRoute({ method: 'GET', url: url.replace('*', 'swagger-ui.css') });
        return (
          found === null ||
          !docsUrls.some(
            (proxy) => url === proxy || (proxy.endsWith('*') && url.startsWith(proxy.slice(0, -1))),
          )
        );
      });
      expect(unreachable).toEqual([]);
    } finally {
      await docs.close();
    }
  });

  it('answers the same document from /api/openapi.json and /docs/json', async () => {
    const [api, ui] = await Promise.all([
      t.call(null, { method: 'GET', url: '/api/openapi.json' }),
      t.app.inject({ method: 'GET', url: '/docs/json' }),
    ]);
    expect(ui.statusCode).toBe(200);
    expect(ui.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(ui.json()).toEqual(api.json());
    const yaml = await t.app.inject({ method: 'GET', url: '/docs/yaml' });
    expect(yaml.headers['content-type']).toBe('application/x-yaml');
    expect(yaml.body).toContain('openapi: 3.1.0');
  });

  it("serves Swagger UI's files with their caching headers, through the root's hooks", async () => {
    const css = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-ui.css' });
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.headers['x-request-id']).toMatch(/^req_/);
    expect(Number(css.headers['content-length'])).toBe(css.rawPayload.length);
    const etag = css.headers.etag as string;
    expect(etag).toBeTruthy();
    const again = await t.app.inject({
      method: 'GET',
      url: '/docs/static/swagger-ui.css',
      headers: { 'if-none-match': etag },
    });
    expect(again.statusCode).toBe(304);
    expect(again.headers['content-type']).toBeUndefined();
    expect(again.body).toBe('');
    const head = await t.app.inject({ method: 'HEAD', url: '/docs/static/swagger-ui.css' });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe(css.headers['content-length']);
    expect(head.body).toBe('');
    const part = await t.app.inject({
      method: 'GET',
      url: '/docs/static/swagger-ui.css',
      headers: { range: 'bytes=0-99' },
    });
    expect(part.statusCode).toBe(206);
    expect(part.rawPayload.length).toBe(100);
    const index = await t.app.inject({ method: 'GET', url: '/docs/static/index.html' });
    expect(index.statusCode).toBe(302);
    expect(index.headers.location).toBe('/docs/');
    expect(index.headers['content-type']).toBeUndefined();
  });

  it("answers what is not there, or refused, in the root's envelopes", async () => {
    const missing = await t.app.inject({ method: 'GET', url: '/docs/static/nope.js' });
    expect({ status: missing.statusCode, body: missing.json() }).toEqual({
      status: 404,
      body: {
        status: 'failed',
        type: 'Not Found',
        message_error: 'no route GET /docs/static/nope.js',
      },
    });
    expect((await t.app.inject({ method: 'GET', url: '/docs/nope' })).statusCode).toBe(404);
    const post = await t.app.inject({ method: 'POST', url: '/docs/json' });
    expect(post.statusCode).toBe(405);
    expect(post.headers.allow).toBe('GET');
    // Range past the end: the file server refuses it (416), which the root's error handler answers as before.
    const range = await t.app.inject({
      method: 'GET',
      url: '/docs/static/swagger-ui.css',
      headers: { range: 'bytes=99999999-' },
    });
    expect({ status: range.statusCode, body: range.json() }).toMatchObject({
      status: 400,
      body: { status: 'failed', message_error: 'request:invalid' },
    });
  });

  it('documents the routes the root registered, with their shared schemas', async () => {
    const route = {
      method: 'GET',
      url: '/api/probe',
      config: { auth: 'none' },
      schema: { response: { 200: { $ref: 'probe#' } } },
      handler: async () => ({}),
    } as unknown as RouteOptions;
    const docs = await buildDocsApp(
      {
        routes: [route, { ...route, method: 'HEAD' } as RouteOptions],
        sharedSchemas: [{ $id: 'probe', type: 'object', properties: { ok: { type: 'boolean' } } }],
      },
      'http://127.0.0.1',
      'production',
    );
    try {
      const doc = docs.swagger() as unknown as Json;
      expect(Object.keys(doc.paths)).toEqual(['/api/probe']);
      expect(Object.keys(doc.paths['/api/probe'])).toEqual(['get']);
      expect(doc.paths['/api/probe'].get.security).toEqual([]);
      // The shared schema is found by its $id and emitted among the components.
      const ref = doc.paths['/api/probe'].get.responses['200'].content['application/json'].schema
        .$ref as string;
      expect(doc.components.schemas[ref.replace('#/components/schemas/', '')]).toMatchObject({
        title: 'probe',
        properties: { ok: { type: 'boolean' } },
      });
    } finally {
      await docs.close();
    }
  });
});
