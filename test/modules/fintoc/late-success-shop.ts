// What the tests of a late Fintoc success (decisions 1055, 1080, 1215) do and read on a Fintoc shop: a sale paid on
// Fintoc's page whose intent Fintoc then reports failed, and the sale's attempts, callbacks and reconcile findings.
// `of` answers the test's app, simulator and shop when called, as they are made in its beforeAll.
import { expect } from 'vitest';
import type { TestAccount, TestApp } from '../../support/app.ts';
import type { FintocSimulator } from '../../support/fintoc-simulator.ts';
import { fintocWebhook } from '../../support/fintoc-shop.ts';
import { createTransaction, linkParams, saleStatusOf } from '../transactions/helpers.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';

interface LateShop {
  readonly t: TestApp;
  readonly sim: FintocSimulator;
  readonly shop: TestAccount;
}

export function lateSuccessShop(of: () => LateShop) {
  return {
    /** A sale paid on Fintoc's page whose intent Fintoc then reports failed: the attempt declined, the sale open. */
    async failedIntent(order: string, amount: number, extra: Record<string, unknown> = {}) {
      const { t, sim, shop } = of();
      const sale = await createTransaction(t, shop, {
        additional_parameters: { payer_rut: '11.111.111-1' },
        order,
        amount,
        payment: 19,
        urlnotify: 'https://tienda.example/notify',
        ...extra,
      });
      const res = await t.app.inject({
        method: 'POST',
        url: '/gateway/cobro',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ ...linkParams(sale.url), method: '19' }).toString(),
      });
      const link = /<a class="button" href="([^"]+)" data-testid="continue-fintoc">/.exec(res.body);
      expect(link, res.body).not.toBeNull();
      const session = link![1]!.split('/').pop()!;
      const page = await fetch(`${sim.url}/pay/${session}/paid`, { redirect: 'manual' });
      expect(page.status).toBe(303);
      const s = sim.sessions.get(session)!;
      const paid = (s.payment_resource as { payment_intent: Record<string, unknown> })
        .payment_intent;
      const intent = { ...paid, metadata: s.metadata } as Record<string, unknown>;
      const failed = { ...intent, status: 'failed' };
      expect(await fintocWebhook(t, sim, shop, 'payment_intent.failed', failed)).toBe('declined');
      expect(await saleStatusOf(t, sale.id)).toBe('pending');
      return { sale, intent };
    },

    /** The sale's attempts, oldest first: their outcomes. */
    async attemptsOf(saleId: string) {
      const rows = await of()
        .t.ctx.db.selectFrom('payment_attempts')
        .select(['outcome', 'media'])
        .where('transaction_id', '=', saleId)
        .orderBy('number')
        .execute();
      return rows.map((r) => `${r.media}:${r.outcome}`);
    },

    /** The statuses of the payment-result callbacks written for the sale of `order`. */
    async callbacksOf(order: string) {
      const { t, shop } = of();
      const rows = await t.ctx.db
        .selectFrom('notifications')
        .select('payload')
        .where('account_id', '=', shop.id)
        .where('event_type', '=', 'transaction.result')
        .execute();
      return rows
        .map((r) => r.payload as Record<string, unknown>)
        .filter((p) => p.order === order)
        .map((p) => String(p.status));
    },

    /** `cobro fintoc reconcile`'s findings about the intent's movement. */
    async reconcileOf(intent: Record<string, unknown>) {
      const { t, shop } = of();
      const out = await dispatch(['fintoc', 'reconcile', '--account', shop.id, '--json'], t.ctx);
      expect(out.stderr).toBe('');
      const findings = JSON.parse(out.stdout).findings as { kind: string; subject: string }[];
      return findings.filter((f) => f.subject === `mov_${String(intent.id)}`).map((f) => f.kind);
    },
  };
}
