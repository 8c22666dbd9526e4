import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';

let t: TestApp;
let account: TestAccount;
beforeAll(async () => {
  t = await startTestApp({
    extraRoutes: (app) => {
      app.get('/api/test-boom', { config: { auth: 'none' } }, async () => {
        throw new Error('select * from secret_table failed at /srv/app.ts:12');
      });
      app.post('/api/test-echo', { config: { auth: 'none' } }, async (request) => ({
        status: 'success',
        body: request.body,
      }));
    },
  });
  account = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

describe('response conventions (supplement §3)', () => {
  it('answers unknown routes with a 404 JSON envelope, before any credential check', async () => {
    const res = await t.call(null, { method: 'GET', url: '/api/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ status: 'failed', type: 'Not Found' });
    expect(res.headers['content-type']).toMatch(/application\/json/);
  });

  it('answers a wrong method with 405 and an Allow header', async () => {
    const res = await t.call(null, { method: 'DELETE', url: '/api/banks' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toContain('GET');
    expect(res.json()).toMatchObject({ status: 'failed', type: 'Method Not Allowed' });
  });

  it('answers 406 when the client accepts no JSON', async () => {
    const res = await t.call(null, {
      method: 'GET',
      url: '/api/banks',
      headers: { accept: 'text/html' },
    });
    expect(res.statusCode).toBe(406);
    expect(res.json()).toMatchObject({ status: 'failed', type: 'Not Acceptable' });
    const ok = await t.call(null, {
      method: 'GET',
      url: '/api/banks',
      headers: { accept: 'application/json, text/plain, */*' },
    });
    expect(ok.statusCode).toBe(200);
  });

  it('takes the Accept values clients send most, and refuses their near misses', async () => {
    for (const accept of [
      'application/json',
      '*/*',
      'application/*',
      'application/problem+json',
      ' ',
      'text/html, application/json;q=0.5',
    ]) {
      const res = await t.call(null, { method: 'GET', url: '/api/banks', headers: { accept } });
      expect(res.statusCode, accept).toBe(200);
    }
    for (const accept of ['application/jsonx', 'text/json', '*/html', 'text/*']) {
      const res = await t.call(null, { method: 'GET', url: '/api/banks', headers: { accept } });
      expect(res.statusCode, accept).toBe(406);
    }
  });

  it('answers malformed JSON with 400 in the seed shape', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/test-echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"amount": 12,',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      status: 'failed',
      type: 'Unprocessable Entity',
      message_error: 'body:invalid json',
    });
  });

  it('refuses bodies over 1 MiB with 400', async () => {
    const big = JSON.stringify({ subject: 'x'.repeat(1024 * 1024 + 10) });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/test-echo',
      headers: { 'content-type': 'application/json' },
      payload: big,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ status: 'failed', errors: { body: 'too large' } });
  });

  it('never leaks internals on an unexpected fault', async () => {
    const res = await t.call(null, { method: 'GET', url: '/api/test-boom' });
    expect(res.statusCode).toBe(500);
    const body = res.json();
    expect(body).toEqual({
      status: 'failed',
      type: 'Internal Server Error',
      message_error: 'internal error',
      request_id: res.headers['x-request-id'],
    });
    expect(res.body).not.toMatch(/secret_table|srv\/app/);
  });

  it('puts an x-request-id on every response and keeps a sane incoming one', async () => {
    const a = await t.call(null, { method: 'GET', url: '/healthz' });
    expect(a.headers['x-request-id']).toMatch(/^req_[0-9a-f]{24}$/);
    const b = await t.call(null, {
      method: 'GET',
      url: '/api/nope',
      headers: { 'x-request-id': 'client-123' },
    });
    expect(b.headers['x-request-id']).toBe('client-123');
    const c = await t.call(null, {
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'bad id with spaces' },
    });
    expect(c.headers['x-request-id']).toMatch(/^req_/);
  });

  it('routes the path with and without a trailing slash alike', async () => {
    const res = await t.call(account, { method: 'GET', url: '/api/account/', sign: true });
    expect(res.statusCode).toBe(200);
    expect(res.json().id).toBe(account.id);
  });

  it('reports health and readiness', async () => {
    expect((await t.call(null, { method: 'GET', url: '/healthz' })).json()).toMatchObject({
      status: 'success',
      up: true,
    });
    expect((await t.call(null, { method: 'GET', url: '/readyz' })).json()).toMatchObject({
      status: 'success',
      ready: true,
      engine: t.ctx.engine,
    });
  });

  it('serves the OpenAPI document with every API route and the docs page', async () => {
    const res = await t.call(null, { method: 'GET', url: '/api/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/banks', '/api/paymentmethods', '/api/account']),
    );
    expect(doc.paths['/api/account'].get.security).toEqual([{ bearer: [], sign: [] }]);
    expect(doc.paths['/api/banks'].get.security).toEqual([]);
    const docs = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect([200, 302]).toContain(docs.statusCode);
  });
});
