// The command runner (decision 071) on the engine of the run: claim, command and answer commit together; a
// refusal rolls the command back and is replayed; a fault stores nothing; concurrent requests with one key run once.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { accountOf } from '../../../src/platform/auth/auth-plugin.ts';
import { commandConfig, runCommand } from '../../../src/platform/commands/runner.ts';
import { notFound } from '../../../src/platform/errors/errors.ts';
import { balance, fund, payout } from '../../modules/wallet/wallet-helpers.ts';

let t: TestApp;
let unguarded: unknown = null;

/** Routes whose command writes a sandbox clock row, then refuses, fails or answers as the body asks. */
function probeRoutes(app: FastifyInstance): void {
  app.post('/api/test-probe', { config: commandConfig }, async (request, reply) =>
    runCommand(t.ctx, request, reply, async (tx) => {
      const accountId = accountOf(request).id;
      await tx.db
        .insertInto('sandbox_clocks')
        .values({ account_id: accountId, offset_ms: 1000, updated_at: tx.clock.now() })
        .onConflict((oc) => oc.column('account_id').doUpdateSet({ offset_ms: 1000 }))
        .execute();
      const mode = (request.body as { mode: string }).mode;
      if (mode === 'refuse') throw notFound('probe');
      if (mode === 'fail') throw new Error('probe fault');
      return { status: 'success', written: true };
    }),
  );
  try {
    app.post('/api/test-unguarded', async () => ({ status: 'success' }));
  } catch (error) {
    unguarded = error;
  }
}

beforeAll(async () => {
  t = await startTestApp({ extraRoutes: probeRoutes });
});
afterAll(async () => {
  await t.close();
});

const key = (k: string) => ({ 'idempotency-key': k });
const clockRows = (accountId: string) =>
  t.ctx.db
    .selectFrom('sandbox_clocks')
    .select('offset_ms')
    .where('account_id', '=', accountId)
    .execute();

describe('command runner (decision 071)', () => {
  it('refuses to register a state-changing route that does not run as a command', () => {
    expect(String(unguarded)).toMatch(/POST \/api\/test-unguarded changes state/);
  });

  it('stores the answer with the effect and replays the same bytes', async () => {
    const a = await t.createAccount();
    const first = await t.call(a, {
      method: 'POST',
      url: '/api/test-probe',
      body: { mode: 'ok' },
      headers: key('p-1'),
    });
    expect(first.json()).toEqual({ status: 'success', written: true });
    const stored = await t.ctx.db
      .selectFrom('idempotency_keys')
      .select(['state', 'body'])
      .where('account_id', '=', a.id)
      .executeTakeFirstOrThrow();
    expect(stored).toEqual({ state: 'done', body: first.body });
    const again = await t.call(a, {
      method: 'POST',
      url: '/api/test-probe',
      body: { mode: 'ok' },
      headers: key('p-1'),
    });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
  });

  it('rolls a refused command back and replays its refusal', async () => {
    const a = await t.createAccount();
    const refused = await t.call(a, {
      method: 'POST',
      url: '/api/test-probe',
      body: { mode: 'refuse' },
      headers: key('p-2'),
    });
    expect(refused.statusCode).toBe(404);
    expect(await clockRows(a.id)).toEqual([]);
    const again = await t.call(a, {
      method: 'POST',
      url: '/api/test-probe',
      body: { mode: 'refuse' },
      headers: key('p-2'),
    });
    expect(again.statusCode).toBe(404);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(refused.body);
    const keyless = await t.call(a, {
      method: 'POST',
      url: '/api/test-probe',
      body: { mode: 'refuse' },
    });
    expect(keyless.statusCode).toBe(404);
    expect(await clockRows(a.id)).toEqual([]);
  });

  it('stores nothing on a fault, so a retry with the key runs again', async () => {
    const a = await t.createAccount();
    const failed = await t.call(a, {
      method: 'POST',
      url: '/api/test-probe',
      body: { mode: 'fail' },
      headers: key('p-3'),
    });
    expect(failed.statusCode).toBe(500);
    expect(await clockRows(a.id)).toEqual([]);
    expect(
      await t.ctx.db
        .selectFrom('idempotency_keys')
        .select('idem_key')
        .where('account_id', '=', a.id)
        .execute(),
    ).toEqual([]);
    const keyless = await t.call(a, {
      method: 'POST',
      url: '/api/test-probe',
      body: { mode: 'fail' },
    });
    expect(keyless.statusCode).toBe(500);
    expect(await clockRows(a.id)).toEqual([]);
  });

  it('runs concurrent requests with one key once: the others wait and replay (or are told 409)', async () => {
    const a = await t.createAccount();
    await fund(t, a, 100_000);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => payout(t, a, { amount: 1000, order: 'c-1' }, key('same'))),
    );
    expect(answers.every((r) => r.statusCode === 200 || r.statusCode === 409)).toBe(true);
    const ok = answers.filter((r) => r.statusCode === 200);
    expect(ok.filter((r) => r.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(new Set(ok.map((r) => r.body)).size).toBe(1);
    // Different orders under one key: only the first body runs, the rest are told the key is taken.
    const mixed = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        payout(t, a, { amount: 1000, order: `m-${i}` }, key('mixed')),
      ),
    );
    expect(
      mixed.filter((r) => r.statusCode === 200 && r.headers['idempotent-replayed'] === undefined),
    ).toHaveLength(1);
    expect(
      mixed
        .filter((r) => r.statusCode !== 200)
        .every((r) => r.statusCode === 422 || r.statusCode === 409),
    ).toBe(true);
    expect(await balance(t, a)).toBe(100_000 - 2000);
  });

  it('runs an after-commit step again after a crash, never the command it follows', async () => {
    const a = await t.createAccount();
    const advance = () =>
      t.call(a, {
        method: 'POST',
        url: '/api/sandbox/clock/advance',
        body: { hours: 1 },
        headers: key('adv-1'),
      });
    const first = await advance();
    expect(first.json()).toMatchObject({ status: 'success', offset_seconds: 3600 });
    const replay = await advance();
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(first.body);
    // Where a crash after the advance committed but before its answer was stored leaves the key.
    await t.ctx.db
      .updateTable('idempotency_keys')
      .set({ state: 'in_flight', status_code: null, content_type: null, body: '3600000' })
      .where('account_id', '=', a.id)
      .where('idem_key', '=', 'adv-1')
      .execute();
    expect((await advance()).statusCode).toBe(409);
    t.clock.advanceMs(61_000);
    const resumed = await advance();
    expect(resumed.statusCode).toBe(200);
    expect(resumed.json()).toMatchObject({ status: 'success', offset_seconds: 3600 });
    expect((await clockRows(a.id)).map((r) => Number(r.offset_ms))).toEqual([3_600_000]);
    const again = await advance();
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(resumed.body);
  });
});
