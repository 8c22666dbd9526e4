// A payer enrols a card on the hosted subscription page in a real Chromium; the subscription becomes active and
// the plan's url_notify_suscription receives `{id, status}` through the real delivery path, verified with the
// `standardwebhooks` package as a merchant would. No card number or CVV is left in the database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { sql } from 'kysely';
import { startBrowserHarness, type BrowserHarness } from '../support/browser-server.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { deliverDueNotifications } from '../../src/platform/notifications/deliver.ts';

let h: BrowserHarness;
let receiver: Receiver;
beforeAll(async () => {
  h = await startBrowserHarness('Tienda de Café');
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await h.close();
});

describe('card enrolment on /gateway/registrosuscripcion', () => {
  it('enrols a sandbox Visa, activates the subscription and delivers the signed activation callback', async () => {
    const plan = await h.api(
      'POST',
      '/api/suplan',
      {
        name: 'Café mensual',
        amount: 12990,
        url_notify_suscription: `${receiver.url}/su`,
        url_notify_payment: `${receiver.url}/pay`,
      },
      true,
    );
    expect(plan.body.status).toBe('success');
    const client = await h.api(
      'POST',
      '/api/suclient/',
      { email: 'ana@example.com', name: 'Ana Pérez', phone: '912345678' },
      true,
    );
    const sub = await h.api(
      'POST',
      '/api/sususcription',
      { plan: plan.body.id, client: client.body.id },
      true,
    );
    expect(sub.body.status).toBe('register');

    const { page, foreign } = await h.newPage();
    await page.goto(sub.body.url);
    expect(await page.textContent('h1')).toBe('Tienda de Café');
    expect(await page.textContent('[data-testid=amount]')).toBe('$12.990');
    await page.fill('#card_number', '5186 0595 5959 0568');
    await page.fill('#expiry', '12/99');
    await page.fill('#cvv', '123');
    await page.click('button[type=submit]');
    expect(await page.textContent('[role=alert]')).toContain('rechazada');
    await page.fill('#card_number', '4051 8856 0044 6623');
    await page.fill('#expiry', '12/99');
    await page.fill('#cvv', '123');
    await page.click('button[type=submit]');
    expect(await page.textContent('[data-testid=result]')).toContain('Tarjeta registrada');
    expect(foreign).toEqual([]);
    await page.close();

    const got = await h.api('GET', `/api/sususcription/${sub.body.id}`, undefined, true);
    expect(got.body.status).toBe('active');
    expect(got.body.cards).toEqual({ last_4_digits: 'XXXXXXXXXXXX6623', card_type: 'Visa' });
    expect(got.body.active_cards).toEqual([
      {
        last_4_digits: 'XXXXXXXXXXXX6623',
        identifier: expect.stringMatching(/^sure[0-9a-f]{20}$/),
        card_type: 'Visa',
        register: expect.any(String),
      },
    ]);
    expect(got.body.logs.status.map((l: { final_status: string }) => l.final_status)).toEqual([
      'register',
      'active',
    ]);

    expect(await deliverDueNotifications(h.server.runtime.ctx, { accountId: h.accountId })).toBe(1);
    const hits = receiver.requests.filter((r) => r.path === '/su');
    expect(hits).toHaveLength(1);
    const secret = (await h.server.runtime.ctx.accounts.webhookSecretsOf(h.accountId))?.current;
    const payload = new Webhook(String(secret)).verify(
      hits[0]!.body,
      hits[0]!.headers as Record<string, string>,
    );
    expect(payload).toEqual({ id: sub.body.id, status: 'active' });

    // Neither the card numbers typed nor their CVV are anywhere in the database.
    const dump = await sql<{
      t: string;
    }>`SELECT string_agg(row_to_json(x)::text, '') AS t FROM (SELECT * FROM su_cards) x`.execute(
      h.server.runtime.ctx.db,
    );
    expect(dump.rows[0]?.t ?? '').not.toContain('4051885600446623');
  });
});
