// Issue 36 point 5: every state-changing /api route leaves an audit row. The cross-account matrix finds the routes
// from the app itself and builds one of every resource (fixtures.ts); after it, `callTheRest` calls each
// state-changing route the fixtures did not, with a request that changes something (deletes last), and
// `expectEveryRouteAudited` fails naming any route with no row: a route added later fails there until it is
// called here. Each row names the route as its action, the account's key (never the token), the request's id,
// and the chain `audit verify` accepts.
import { expect } from 'vitest';
import type { TestAccount, TestApp } from '../support/app.ts';
import { dispatch } from '../../src/cli/dispatch.ts';
import { verifyAudit } from '../../src/platform/audit/verify.ts';
import type { AccountFixtures } from './fixtures.ts';

async function okCall(
  t: TestApp,
  a: TestAccount,
  method: 'POST' | 'PUT' | 'DELETE',
  url: string,
  body?: unknown,
) {
  const res = await t.call(a, { method, url, body, sign: true });
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(200);
  expect(res.json().status, `${method} ${url}: ${res.body}`).not.toBe('failed');
  return res.json();
}

/** The routes buildFixtures does not call, each once with a request that changes something; deletes last. */
export async function callTheRest(t: TestApp, a: TestAccount, ids: AccountFixtures): Promise<void> {
  const ok = (method: 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) =>
    okCall(t, a, method, url, body);
  const bank = ['accounts', 'set-bank', a.id, '--sbif', '0012', '--type', '2', '--num', '12345678'];
  const set = await dispatch([...bank, '--rut', '76123456K', '--name', 'Comercio SpA'], t.ctx);
  expect(set.exitCode, set.stderr).toBe(0);
  await ok('POST', '/api/wallet/withdraw', {
    amount: 1_000,
    currency: 'CLP',
    order: 'au-w',
    subject: 'retiro',
  });
  await ok('POST', '/api/conciliation', { date_init: '2026-03-10', date_end: '2026-03-10' });
  await ok('POST', `/api/notifications/${ids.notification}/retry`);
  await ok('POST', '/api/escrow', { transactions: [ids.nullification] });
  const d = await ok('POST', '/api/sandbox/disputes', {
    transaction_id: ids.nullification,
    amount: 500,
    reason: 'fraud',
  });
  await ok('POST', `/api/disputes/${d.dispute.id}/evidence`, { text: 'delivered' });
  await ok('POST', `/api/sandbox/disputes/${d.dispute.id}/resolve`, { outcome: 'won' });
  const d2 = await ok('POST', '/api/sandbox/disputes', {
    transaction_id: ids.nullification,
    amount: 500,
    reason: 'fraud',
  });
  await ok('POST', `/api/disputes/${d2.dispute.id}/accept`);
  await ok('PUT', `/api/maclient/${ids.maclient}`, {
    name: 'Renamed',
    bank: { sbif: '0001', type: '1', num: '99999999', rut: '111111111' },
  });
  await ok('PUT', `/api/suclient/${ids.suclient}`, { name: 'Renamed', email: 'r@example.com' });
  await ok('POST', '/api/suinscriptionscards', { suscription: ids.sususcription });
  await ok('POST', '/api/sutransaction', {
    suscription: ids.sususcription,
    amount: 1_000,
    order: 'au-su',
  });
  await ok('POST', '/api/sandbox/clock/advance', { seconds: 1 });
  await ok('POST', '/api/suscriptionsdeletecards', { card: ids.suCard });
  await ok('DELETE', `/api/sususcription/${ids.sususcription}`);
  await ok('DELETE', `/api/suclient/${ids.suclient}`);
  await ok('DELETE', `/api/maaffiliation/${ids.maaffiliation}`);
  await ok('DELETE', `/api/maclient/${ids.maclient}`);
}

/** `routes`: every state-changing /api route as `METHOD /path`. */
export async function expectEveryRouteAudited(
  t: TestApp,
  a: TestAccount,
  routes: readonly string[],
): Promise<number> {
  const audited = await t.ctx.db
    .selectFrom('audit_log')
    .select(['action', 'actor', 'actor_kind', 'request_id', 'target'])
    .where('chain', '=', a.id)
    .execute();
  const bare = (route: string) => route.replace(/\/$/, '');
  const actions = new Set(audited.map((r) => bare(r.action)));
  const missing = [...new Set(routes.map(bare))].filter((r) => !actions.has(r)).sort();
  expect(missing, 'state-changing routes with no audit row: call them in callTheRest').toEqual([]);
  // The operator's `cobro accounts set-bank` above is in the same chain, by the operator.
  expect(audited.filter((r) => r.actor_kind === 'operator')).toEqual([
    {
      action: 'cobro accounts set-bank',
      actor: 'operator',
      actor_kind: 'operator',
      request_id: null,
      target: a.id,
    },
  ]);
  for (const row of audited.filter((r) => r.actor_kind !== 'operator')) {
    expect(row.actor_kind).toBe('api_key');
    expect(row.actor).toMatch(/^key:(primary|key[0-9a-f]+)$/);
    expect(a.publicToken.includes(row.actor.slice(4))).toBe(false);
    expect(row.request_id).toEqual(expect.any(String));
  }
  expect(await verifyAudit(t.ctx.db)).toMatchObject({ ok: true });
  return missing.length === 0 ? new Set(routes.map(bare)).size : 0;
}
