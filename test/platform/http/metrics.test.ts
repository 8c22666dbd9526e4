// GET /metrics over real HTTP: Prometheus text, counters that move after a sandbox payment, route patterns as
// labels, and the production rule (a Bearer METRICS_TOKEN, or 404 when none is configured).
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveApp, type LiveApp } from '../../client/live-app.ts';
import { payByCard } from '../../modules/transactions/helpers.ts';

/** The value of one sample line, e.g. `cobro_payments{status="success"}`; 0 when the series is absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

async function scrape(baseUrl: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${baseUrl}/metrics`, { headers });
}

describe('GET /metrics in sandbox', () => {
  let live: LiveApp;
  beforeAll(async () => {
    live = await startLiveApp();
  });
  afterAll(async () => {
    await live.close();
  });

  it('answers Prometheus text 0.0.4 without credentials', async () => {
    const res = await scrape(live.baseUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await res.text();
    for (const name of [
      'cobro_http_requests_total',
      'cobro_http_request_duration_seconds',
      'cobro_payments',
      'cobro_payouts',
      'cobro_callback_attempts',
      'cobro_callbacks_queued',
      'cobro_callback_queue_oldest_age_seconds',
      'cobro_ledger_journals',
      'cobro_db_pool_connections',
    ]) {
      expect(text).toContain(`# TYPE ${name} `);
    }
    // PostgreSQL reports its pool; PGlite, one in-process connection and nothing else.
    const states = live.t.ctx.engine === 'postgres' ? ['total', 'idle', 'waiting'] : ['total'];
    for (const state of ['total', 'idle', 'waiting']) {
      const present = text.includes(
        `cobro_db_pool_connections{engine="${live.t.ctx.engine}",state="${state}"} `,
      );
      expect(present, state).toBe(states.includes(state));
    }
  });

  it('counts a sandbox payment, its journal and its request by route pattern', async () => {
    const before = await (await scrape(live.baseUrl)).text();
    const merchant = await live.t.createAccount('Metrics merchant');
    const { created, res } = await payByCard(live.t, merchant);
    expect(res.statusCode).toBeLessThan(400);
    const got = await live.t.call(merchant, {
      method: 'GET',
      url: `/api/transaction/${created.id}`,
    });
    expect(got.statusCode).toBe(200);
    const after = await (await scrape(live.baseUrl)).text();

    expect(sample(after, 'cobro_payments{status="success"}')).toBe(
      sample(before, 'cobro_payments{status="success"}') + 1,
    );
    expect(sample(after, 'cobro_ledger_journals')).toBeGreaterThan(
      sample(before, 'cobro_ledger_journals'),
    );
    const byPattern =
      'cobro_http_requests_total{method="GET",route="/api/transaction/:id",status_code="200"}';
    expect(sample(after, byPattern)).toBe(sample(before, byPattern) + 1);
    // The raw URL never becomes a label: one series per route, not one per payment.
    expect(after).not.toContain(created.id);
    expect(after).toMatch(
      /cobro_http_request_duration_seconds_count\{method="POST",route="\/api\/transaction",status_code="200"\} \d/,
    );
  });

  it('reports a queued callback and its age on the service clock', async () => {
    const merchant = await live.t.createAccount('Callback merchant');
    // The callback URL is never reached (workers are off in tests), so the callback stays queued.
    await payByCard(live.t, merchant, { urlnotify: 'http://127.0.0.1:9/callback' });
    live.t.clock.advanceMs(90_000);
    const text = await (await scrape(live.baseUrl)).text();
    expect(sample(text, 'cobro_callbacks_queued')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'cobro_callback_queue_oldest_age_seconds')).toBeGreaterThanOrEqual(90);
  });
});

describe('GET /metrics when the database cannot answer', () => {
  let live: LiveApp;
  beforeAll(async () => {
    live = await startLiveApp();
  });
  afterAll(async () => {
    await live.close();
  });

  it('answers 503 in the error envelope, not a 500', async () => {
    // This test's own database clone: a table the scrape reads goes missing, so its query fails.
    await sql`ALTER TABLE journal_entries RENAME TO journal_entries_gone`.execute(live.t.ctx.db);
    const res = await scrape(live.baseUrl);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({
      status: 'failed',
      message_error: 'metrics could not be read from the database',
    });
  });
});

describe('GET /metrics in production', () => {
  const token = 'metrics-token-0123456789';
  let withToken: LiveApp;
  let withoutToken: LiveApp;
  beforeAll(async () => {
    const secret = { COBRO_MODE: 'production', COBRO_SECRET_KEY: '00'.repeat(32) };
    withToken = await startLiveApp({ env: { ...secret, METRICS_TOKEN: token } });
    withoutToken = await startLiveApp({ env: secret });
  });
  afterAll(async () => {
    await withToken.close();
    await withoutToken.close();
  });

  it('answers only with Authorization: Bearer METRICS_TOKEN', async () => {
    expect((await scrape(withToken.baseUrl)).status).toBe(401);
    const wrong = await scrape(withToken.baseUrl, { authorization: `Bearer ${token}x` });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ status: 'failed', message_error: 'invalid token' });
    const right = await scrape(withToken.baseUrl, { authorization: `Bearer ${token}` });
    expect(right.status).toBe(200);
    expect(await right.text()).toContain('cobro_payments');
  });

  it('is not there at all without METRICS_TOKEN', async () => {
    const res = await scrape(withoutToken.baseUrl, { authorization: `Bearer ${token}` });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ status: 'failed' });
  });

  it('refuses a METRICS_TOKEN too short to be a secret', async () => {
    const { loadConfig } = await import('../../../src/platform/process/config.ts');
    expect(loadConfig({ METRICS_TOKEN: 'short' })).toMatchObject({
      ok: false,
      errors: [expect.stringContaining('METRICS_TOKEN')],
    });
  });
});
