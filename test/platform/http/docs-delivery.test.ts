// /docs loads fast and reads on a phone (issue 32 point 7): Swagger UI's files come compressed and, at the
// versioned URLs the page links, cacheable for a year; the page itself has a viewport and is checked every time.
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { versionedCacheControl } from '../../../src/platform/http/docs-page.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

/** The asset URLs the /docs page links, each with its `?v=`. */
async function pageAssets(): Promise<{ page: string; urls: string[] }> {
  const page = await t.app.inject({ method: 'GET', url: '/docs' });
  expect(page.statusCode).toBe(200);
  return {
    page: page.body,
    urls: [...page.body.matchAll(/(?:href|src)="(\/docs\/static\/[^"]+)"/g)].map((m) => m[1]!),
  };
}

describe('/docs delivery', () => {
  it('answers a page with a viewport, a language and versioned asset URLs, checked again on each visit', async () => {
    const { page, urls } = await pageAssets();
    expect(page).toContain('<meta name="viewport" content="width=device-width,initial-scale=1">');
    expect(page).toContain('<html lang="en">');
    expect(page).toContain('<title>[Sandbox] Cobro API docs</title>');
    expect(urls).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\/docs\/static\/swagger-ui-bundle\.js\?v=[0-9a-f]{16}$/),
      ]),
    );
    expect(new Set(urls.map((u) => u.split('?v=')[1])).size).toBe(1);
    const again = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(again.headers['cache-control']).toBe('no-cache');
  });

  it('serves the versioned assets compressed (brotli, else gzip) and immutable for a year', async () => {
    const { urls } = await pageAssets();
    const bundleUrl = urls.find((u) => u.includes('swagger-ui-bundle.js'))!;
    const plain = await t.app.inject({ method: 'GET', url: bundleUrl });
    expect(plain.headers['content-encoding']).toBeUndefined();
    for (const url of urls) {
      const br = await t.app.inject({
        method: 'GET',
        url,
        headers: { 'accept-encoding': 'br, gzip' },
      });
      expect(br.statusCode, url).toBe(200);
      expect(br.headers['cache-control'], url).toBe(versionedCacheControl);
    }
    const br = await t.app.inject({
      method: 'GET',
      url: bundleUrl,
      headers: { 'accept-encoding': 'gzip, deflate, br' },
    });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(zlib.brotliDecompressSync(br.rawPayload).equals(plain.rawPayload)).toBe(true);
    expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length / 3);
    const gzip = await t.app.inject({
      method: 'GET',
      url: bundleUrl,
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gzip.rawPayload).equals(plain.rawPayload)).toBe(true);
  });

  it('keeps an unversioned or stale asset URL revalidated, and compresses the document', async () => {
    const bare = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-ui.css' });
    expect(bare.headers['cache-control']).not.toContain('immutable');
    const stale = await t.app.inject({
      method: 'GET',
      url: '/docs/static/swagger-ui.css?v=0000000000000000',
    });
    expect(stale.headers['cache-control']).not.toContain('immutable');
    const json = await t.app.inject({
      method: 'GET',
      url: '/docs/json',
      headers: { 'accept-encoding': 'br' },
    });
    expect(json.headers['content-encoding']).toBe('br');
    expect(json.headers['cache-control']).toBe('no-cache');
    expect(JSON.parse(zlib.brotliDecompressSync(json.rawPayload).toString()).openapi).toBe('3.1.0');
  });
});
