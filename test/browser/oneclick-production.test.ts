// Production subscriptions end to end in Chromium (issue 33): a real `cobro serve` in COBRO_MODE=production, an
// account whose stored cards go through Oneclick Mall (the real transbank-sdk) pointed at the local simulator of
// Transbank's REST protocol. The payer opens the subscription's enrolment link, continues to "Transbank's" page,
// registers the integration VISA, comes back active; the merchant then charges the stored card once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startProductionHarness, type ProductionHarness } from '../support/browser-server.ts';
import { startOneclickSimulator, type OneclickSimulator } from '../support/oneclick-simulator.ts';
import { seriousAxeViolations } from './axe.ts';
import { saveOneclickSettings } from '../../src/platform/processors/oneclick-settings.ts';

let harness: ProductionHarness;
let browser: Browser;
let sim: OneclickSimulator;
const api = (method: 'GET' | 'POST', url: string, body?: Record<string, unknown>) =>
  harness.api(method, url, body, true);

beforeAll(async () => {
  sim = await startOneclickSimulator();
  harness = await startProductionHarness('Club del Vino');
  browser = harness.browser;
  const ctx = harness.server.runtime.ctx;
  await saveOneclickSettings(
    ctx,
    harness.account.id,
    {
      commerceCode: sim.commerceCode,
      childCommerceCode: sim.childCommerceCode,
      apiKey: sim.apiKey,
      environment: sim.url,
    },
    ctx.clock.now(),
  );
}, 180_000);

afterAll(async () => {
  await harness?.close();
  await sim?.close();
});

describe('production subscription through Oneclick Mall in Chromium', () => {
  it("enrols a card on Transbank's page and charges it", async () => {
    const plan = await api('POST', '/api/suplan', { name: 'Vino del mes' });
    expect(plan.body.status).toBe('success');
    const client = await api('POST', '/api/suclient/', {
      email: 'vina@example.com',
      name: 'Viña Pérez',
      phone: '912345678',
    });
    const sub = await api('POST', '/api/sususcription', {
      plan: plan.body.id,
      client: client.body.id,
    });
    expect(sub.body.status, JSON.stringify(sub.body)).toBe('register');

    const page = await browser.newPage({ viewport: { width: 520, height: 820 } });
    await page.goto(sub.body.url as string);
    expect(await page.textContent('h1')).toBe('Club del Vino');
    expect(await page.locator('#card_number').count()).toBe(0);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Registrar tarjeta en Transbank' }).click();
    await page.getByRole('button', { name: 'Continuar a Transbank' }).click();
    await page.waitForURL(`${sim.url}/oneclick/inscription`);
    await page.fill('#card', '4051 8856 0044 6623');
    await page.click('#enrol');
    await page.waitForURL(/\/gateway\/oneclick\/return/);
    expect(await page.textContent('[data-testid=result]')).toContain('Tarjeta registrada');
    await page.close();

    const got = await api('GET', `/api/sususcription/${sub.body.id}`);
    expect(got.body.status).toBe('active');
    expect(got.body.cards).toEqual({ last_4_digits: 'XXXXXXXXXXXX6623', card_type: 'Visa' });
    const charged = await api('POST', '/api/sutransaction', {
      suscription: sub.body.id,
      amount: '15990',
      order: 'vino-1',
    });
    expect(charged.body).toMatchObject({ status: 'success', amount: '15990' });
    expect([...sim.charges.values()].map((c) => c.amount)).toEqual([15990]);
  });
});
