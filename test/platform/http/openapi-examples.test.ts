// API docs people can use (issue 16 point 7): every operation of /api/openapi.json has a summary and examples
// (request body, answer, error bodies) that match its schemas, the Sign header is described, and /docs is branded
// Cobro with a sandbox "sign this request" helper that computes the same Sign as the server checks.
import vm from 'node:vm';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeSign } from '../../../src/platform/auth/sign.ts';
import { signRequestInterceptor } from '../../../src/platform/http/docs-sign-helper.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

type Json = Record<string, any>;
const methods = ['get', 'post', 'put', 'patch', 'delete'];
const examplesFile = 'src/platform/http/openapi-examples.ts';

function operations(doc: Json): [string, Json][] {
  return Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
    methods
      .filter((m) => item[m] !== undefined)
      .map((m) => [`${m.toUpperCase()} ${path}`, item[m] as Json] as [string, Json]),
  );
}

describe('GET /api/openapi.json examples', () => {
  it('gives every operation a summary, a request example and an example of each answer, valid against its schema', async () => {
    const doc = (await t.call(null, { method: 'GET', url: '/api/openapi.json' })).json() as Json;
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats.default(ajv);
    for (const [id, schema] of Object.entries((doc.components?.schemas ?? {}) as Json))
      ajv.addSchema(schema, `#/components/schemas/${id}`);
    const problems: string[] = [];
    const ops = operations(doc);
    expect(ops.length).toBeGreaterThan(20);
    for (const [name, op] of ops) {
      if (typeof op.summary !== 'string' || op.summary.trim() === '') {
        problems.push(
          `${name}: no summary; add \`summary: 'What it does'\` to the route's schema (beside tags, body, response)`,
        );
      }
      const media: [string, Json][] = [
        ...Object.entries((op.requestBody?.content ?? {}) as Json).map(
          ([type, m]) => [`request body (${type})`, m as Json] as [string, Json],
        ),
        ...Object.entries((op.responses ?? {}) as Json).flatMap(([code, r]) =>
          Object.entries(((r as Json).content ?? {}) as Json).map(
            ([type, m]) => [`response ${code} (${type})`, m as Json] as [string, Json],
          ),
        ),
      ];
      if (
        !Object.keys(op.responses ?? {}).some(
          (c) => c.startsWith('2') && op.responses[c].content !== undefined,
        ) &&
        op.responses?.['302'] === undefined
      ) {
        problems.push(
          `${name}: no 2xx response schema, so no example; add \`response: withErrors({ 200: YourSchema })\` to the route's schema`,
        );
      }
      for (const [where, m] of media) {
        const values =
          m.example !== undefined
            ? [m.example]
            : Object.values((m.examples ?? {}) as Json).map((e) => (e as Json).value);
        if (values.length === 0 || values.some((v) => v === undefined)) {
          problems.push(
            `${name} ${where}: no example; give the schema \`examples: [value]\` (a TypeBox option) or add its fields to seedValues in ${examplesFile}`,
          );
          continue;
        }
        if (m.schema === undefined || JSON.stringify(m.schema).includes('"$ref"')) continue;
        const validate = ajv.compile(m.schema);
        for (const value of values) {
          if (!validate(value)) {
            problems.push(
              `${name} ${where}: example ${JSON.stringify(value).slice(0, 200)} does not match its schema (${ajv.errorsText(validate.errors)}); give the field \`examples: [value]\` or fix seedValues in ${examplesFile}`,
            );
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('shows the seed values and the error bodies Cobro writes, and describes the Sign header on signed operations', async () => {
    const doc = (await t.call(null, { method: 'GET', url: '/api/openapi.json' })).json() as Json;
    const payout = doc.paths['/api/wallet/payout'].post as Json;
    expect(payout.requestBody.content['application/json'].example).toMatchObject({
      email: 'comprador@ejemplo.cl',
      order: '133222',
      amount: 1000,
      currency: 'CLP',
      accountbank_sbif: '0001',
      accountbank_type: '1',
    });
    expect(payout.responses['200'].content['application/json'].example).toMatchObject({
      status: 'success',
    });
    const e401 = Object.values(
      payout.responses['401'].content['application/json'].examples as Json,
    ).map((e) => (e as Json).value.message_error);
    expect(e401).toEqual(['waiting token public', 'invalid token', 'waiting sign', 'invalid sign']);
    expect(payout.responses['400'].content['application/json'].examples.e1.value).toMatchObject({
      status: 'failed',
      type: 'Unprocessable Entity',
    });
    expect(payout.description).toContain('`Sign` header');
    const sign = doc.components.securitySchemes.sign as Json;
    expect(sign).toMatchObject({ type: 'apiKey', in: 'header', name: 'Sign' });
    expect(sign.description).toContain('HMAC-SHA256');
    expect(sign.description).toContain('sorted by key');
    expect(sign.description).toContain('paste the PRIVATE token here');
  });
});

describe('/docs', () => {
  it('is branded Cobro: title, favicon and logo', async () => {
    const page = await t.call(null, { method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    // The sandbox says so here as on the checkout and the dashboard.
    expect(page.body).toContain('<title>[Sandbox] Cobro API docs</title>');
    expect(page.body).toMatch(
      /<link rel="icon" type="image\/svg\+xml" href="[^"]*theme\/favicon\.svg(\?v=[0-9a-f]+)?"/,
    );
    const badge = await t.call(null, { method: 'GET', url: '/docs/static/theme/sandbox.css' });
    expect(badge.statusCode).toBe(200);
    expect(badge.body).toContain('content: "Sandbox \\00B7  pruebas, sin dinero real"');
    const favicon = await t.call(null, { method: 'GET', url: '/docs/static/theme/favicon.svg' });
    expect(favicon.statusCode).toBe(200);
    const init = (await t.call(null, { method: 'GET', url: '/docs/static/swagger-initializer.js' }))
      .body;
    const logo = /img\.src = 'data:image\/svg\+xml;base64,([^']+)'/.exec(init)?.[1];
    expect(Buffer.from(logo!, 'base64').toString()).toContain('>Cobro</text>');
    expect(init).toContain('requestInterceptor');
  });

  it('has no sandbox badge in production', async () => {
    const production = await startTestApp({
      env: { COBRO_MODE: 'production', COBRO_SECRET_KEY: 'ab'.repeat(32) },
    });
    try {
      const page = await production.call(null, { method: 'GET', url: '/docs/' });
      expect(page.body).toContain('<title>Cobro API docs</title>');
      expect(page.body).not.toContain('sandbox.css');
    } finally {
      await production.close();
    }
  });

  /** The interceptor as the page sends it, run with only what a browser has (nothing of the server's). */
  async function browserInterceptor(): Promise<typeof signRequestInterceptor> {
    const init = (await t.call(null, { method: 'GET', url: '/docs/static/swagger-initializer.js' }))
      .body;
    const source = /"requestInterceptor":(async function[\s\S]*?\n\})[,}]/.exec(init)?.[1];
    expect(source, 'the interceptor source in swagger-initializer.js').toBeDefined();
    return vm.runInNewContext(`(${source})`, {
      crypto: globalThis.crypto,
      TextEncoder,
      URL,
      location: { href: 'http://127.0.0.1:8080/docs/' },
    }) as typeof signRequestInterceptor;
  }

  it('signs "Try it out" requests in the browser the way the server checks them', async () => {
    const browser = await browserInterceptor();
    const token = 'fe551abcef62fcf002dc598922e68f0a';
    const body = {
      amount: 1000,
      currency: 'CLP',
      order: '133222',
      subject: 'withdraw 133222',
      nested: { a: 1 },
      email: 'a+b@ejemplo.cl',
    };
    const post = await browser({
      url: 'http://127.0.0.1:8080/api/wallet/withdraw',
      method: 'POST',
      body: JSON.stringify(body),
      headers: { Sign: token },
    });
    expect(post.headers).toEqual({ Sign: computeSign(token, '/api/wallet/withdraw', body) });
    const get = await browser({
      url: '/api/wallet/list?page=1&per_page=10',
      method: 'GET',
      headers: { sign: token, accept: 'application/json' },
    });
    expect(get.headers).toEqual({
      accept: 'application/json',
      Sign: computeSign(token, '/api/wallet/list', { page: '1', per_page: '10' }),
    });
    const ready = 'a'.repeat(64);
    expect((await browser({ url: '/api/wallet', headers: { Sign: ready } })).headers).toEqual({
      Sign: ready,
    });
    expect((await browser({ url: '/docs/json', headers: {} })).headers).toEqual({});

    // A signed route accepts what the helper computed.
    const account = await t.createAccount();
    const signed = await signRequestInterceptor({
      url: '/api/wallet?currency=CLP',
      method: 'GET',
      headers: { Sign: account.privateToken },
    });
    const answer = await t.call(account, {
      method: 'GET',
      url: '/api/wallet?currency=CLP',
      headers: { sign: signed.headers.Sign },
    });
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toMatchObject({ status: 'success' });
  });

  it('leaves a query key given twice out of the Sign, as the server reads it (a list) (decision 770)', async () => {
    const browser = await browserInterceptor();
    const account = await t.createAccount();
    // `x` twice is a list on the server, which Sign leaves out; `currency` once is signed.
    const url = '/api/wallet?currency=CLP&x=1&x=2';
    const signed = await browser({ url, method: 'GET', headers: { Sign: account.privateToken } });
    expect(signed.headers).toEqual({
      Sign: computeSign(account.privateToken, '/api/wallet', { currency: 'CLP' }),
    });
    const answer = await t.call(account, {
      method: 'GET',
      url,
      headers: { sign: signed.headers.Sign },
    });
    expect(answer.statusCode).toBe(200);
    // The stack tests' own signing reads the query the same way.
    const helper = await t.call(account, { method: 'GET', url, sign: true });
    expect(helper.statusCode).toBe(200);
  });
});
