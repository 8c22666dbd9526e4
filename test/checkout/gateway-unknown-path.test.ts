// Decision 810: a browser opening a /gateway/ address no page answers (a payment link cut short or mistyped) got the
// API's English JSON `no route GET /gateway/...`. It now gets the checkout's Spanish page of a bad link, as for a
// link whose transaction is unknown; an API client (JSON, `*/*`, no Accept) still gets the JSON error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

const browserAccept =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('an unknown /gateway/ address', () => {
  it('answers a browser with the invalid-link page the checkout shows for a bad link', async () => {
    const badLink = await t.app.inject({
      method: 'GET',
      url: '/gateway/cobro?id=trx00000000000000000&valid=x',
      headers: { accept: browserAccept },
    });
    expect(badLink.statusCode).toBe(404);
    for (const url of ['/gateway/cobr', '/gateway/nope/deeper?x=1', '/gateway/']) {
      const res = await t.app.inject({ method: 'GET', url, headers: { accept: browserAccept } });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).toBe('text/html; charset=utf-8');
      expect(res.body, url).toContain('<h1>Enlace de pago no válido</h1>');
      expect(res.body, url).not.toContain('no route');
      // The checkout's own headers and page: the same document as the bad link's.
      expect(res.headers['x-frame-options'], url).toBe('DENY');
      expect(res.body.replace(/nonce-[^']+'|nonce="[^"]+"/g, ''), url).toBe(
        badLink.body.replace(/nonce-[^']+'|nonce="[^"]+"/g, ''),
      );
    }
  });

  it('answers an API client, and any other method, with the JSON error as before', async () => {
    for (const accept of [undefined, '*/*', 'application/json']) {
      const res = await t.app.inject({
        method: 'GET',
        url: '/gateway/nope',
        headers: accept === undefined ? {} : { accept },
      });
      expect(res.statusCode, accept).toBe(404);
      expect(res.headers['content-type'], accept).toContain('application/json');
      expect(res.body, accept).toContain('no route GET /gateway/nope');
    }
    const post = await t.app.inject({
      method: 'POST',
      url: '/gateway/nope',
      headers: { accept: browserAccept },
    });
    expect(post.statusCode).toBe(404);
    expect(post.body).toContain('no route POST /gateway/nope');
    const put = await t.app.inject({
      method: 'PUT',
      url: '/gateway/cobro',
      headers: { accept: browserAccept },
    });
    expect(put.statusCode).toBe(405);
    // Outside /gateway/ nothing changed.
    const elsewhere = await t.app.inject({
      method: 'GET',
      url: '/nope',
      headers: { accept: browserAccept },
    });
    expect(elsewhere.body).toContain('no route GET /nope');
  });

  it('answers a browser with the same page for a /gateway/ path the router refuses (decision 860)', async () => {
    const unknown = await t.app.inject({
      method: 'GET',
      url: '/gateway/mall/nope',
      headers: { accept: browserAccept },
    });
    expect(unknown.body).toContain('<h1>Enlace de pago no válido</h1>');
    // Bad percent-encoding, and a mall id past the router's length: refused before any route.
    for (const url of [
      '/gateway/mall/%ZZ',
      `/gateway/mall/${'x'.repeat(300)}`,
      '/gateway/cobro%ZZ',
    ]) {
      const res = await t.app.inject({ method: 'GET', url, headers: { accept: browserAccept } });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).toBe('text/html; charset=utf-8');
      expect(res.headers['x-frame-options'], url).toBe('DENY');
      expect(res.body.replace(/nonce-[^']+'|nonce="[^"]+"/g, ''), url).toBe(
        unknown.body.replace(/nonce-[^']+'|nonce="[^"]+"/g, ''),
      );
    }
    // An API client still gets the seed's envelope.
    const api = await t.app.inject({ method: 'GET', url: '/gateway/mall/%ZZ' });
    expect(api.statusCode).toBe(400);
    expect(api.json()).toMatchObject({ status: 'failed', errors: { url: 'invalid' } });
  });
});
