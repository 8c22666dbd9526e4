// `node bench/docs-page.ts`: how fast `/docs` is drawn in Chromium (issue 32 point 10, decision 460), beside its
// limit measured in the same run: the same OpenAPI document served the way `/docs` was before decision 460
// (@fastify/swagger-ui with its defaults: Swagger UI's own page, files uncompressed and revalidated every visit,
// the schemas section drawn). Each page is loaded cold (a new browser context) and warm (reloaded in the same
// context), on loopback and over an emulated link (DOCS_BENCH_KBPS, default 10,000 kbit/s, 40 ms latency); the
// figure is the time from navigation to every operation's row drawn, and the bytes that crossed the wire.
// DOCS_BENCH_RUNS (default 5) loads of each kind; the median and the ratio to the baseline are printed and written
// to bench/results/docs-page-<time>.json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import Fastify from 'fastify';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { Browser, BrowserContext } from 'playwright-core';
import { repoRoot, startServe } from '../test/support/cli.ts';
import { freePort } from '../test/support/net.ts';
import { launchChromium } from '../test/support/browser-server.ts';

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new Error(`${name} must be a positive integer`);
  return Number(raw);
}

const runs = positiveInt('DOCS_BENCH_RUNS', 5);
const linkKbps = positiveInt('DOCS_BENCH_KBPS', 10_000);
const linkLatencyMs = 40;
const drawTimeoutMs = 60_000;

interface Load {
  readonly ms: number;
  readonly bytes: number;
}

/** The pre-460 page: @fastify/swagger-ui's defaults over the same document. */
async function baselineServer(document: object): Promise<{ url: string; close(): Promise<void> }> {
  const app = Fastify();
  await app.register(fastifySwagger, { mode: 'static', specification: { document } as never });
  await app.register(fastifySwaggerUi, { routePrefix: '/docs' });
  const url = await app.listen({ host: '127.0.0.1', port: await freePort() });
  return { url, close: () => app.close() };
}

/** One navigation to `/docs` until `operations` rows are drawn: its time and the bytes received. */
async function load(
  context: BrowserContext,
  url: string,
  operations: number,
  link: boolean,
): Promise<Load> {
  const page = await context.newPage();
  if (link) {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: linkLatencyMs,
      downloadThroughput: (linkKbps * 1000) / 8,
      uploadThroughput: (linkKbps * 1000) / 8,
    });
  }
  let bytes = 0;
  page.on('requestfinished', (request) => {
    void request.sizes().then((s) => {
      bytes += s.responseBodySize + s.responseHeadersSize;
    });
  });
  const started = performance.now();
  await page.goto(`${url}/docs`);
  await page.waitForFunction(
    (n) =>
      (
        globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } }
      ).document.querySelectorAll('.opblock').length >= n,
    operations,
    { timeout: drawTimeoutMs },
  );
  const ms = performance.now() - started;
  await page.close();
  return { ms, bytes };
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function measure(browser: Browser, url: string, operations: number, link: boolean) {
  const cold: Load[] = [];
  const warm: Load[] = [];
  for (let i = 0; i < runs; i++) {
    const context = await browser.newContext();
    cold.push(await load(context, url, operations, link));
    warm.push(await load(context, url, operations, link));
    await context.close();
  }
  const summary = (xs: Load[]) => ({
    ms: Math.round(median(xs.map((x) => x.ms))),
    kb: Math.round(median(xs.map((x) => x.bytes)) / 1024),
  });
  return { cold: summary(cold), warm: summary(warm) };
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-docs-bench-'));
const port = await freePort();
const cobroUrl = `http://127.0.0.1:${port}`;
const serve = await startServe({ DATA_DIR: dataDir, PORT: String(port) });
const browser = await launchChromium();
try {
  const document = (await (await fetch(`${cobroUrl}/api/openapi.json`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const operations = Object.values(document.paths).reduce((n, p) => n + Object.keys(p).length, 0);
  const baseline = await baselineServer(document);
  const rows: Record<string, unknown> = {};
  for (const link of [false, true]) {
    const where = link ? `link ${linkKbps} kbit/s, ${linkLatencyMs} ms` : 'loopback';
    const before = await measure(browser, baseline.url, operations, link);
    const now = await measure(browser, cobroUrl, operations, link);
    rows[where] = { baseline: before, cobro: now };
    for (const kind of ['cold', 'warm'] as const) {
      process.stdout.write(
        `${where.padEnd(28)} ${kind}: /docs ${now[kind].ms} ms, ${now[kind].kb} KB; before 460 ${before[kind].ms} ms, ${before[kind].kb} KB; ratio ${(now[kind].ms / before[kind].ms).toFixed(2)}\n`,
      );
    }
  }
  await baseline.close();
  const file = path.join(
    repoRoot,
    'bench',
    'results',
    `docs-page-${new Date().toISOString().replace(/[:.]/g, '-')}.json`,
  );
  fs.writeFileSync(
    file,
    `${JSON.stringify({ at: new Date().toISOString(), load: os.loadavg(), cpus: os.cpus().length, node: process.version, runs, operations, rows }, null, 2)}\n`,
  );
  process.stdout.write(`written ${path.relative(repoRoot, file)}\n`);
} finally {
  await browser.close();
  await serve.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
