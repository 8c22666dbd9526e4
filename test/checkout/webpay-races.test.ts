// Two tabs, a double click, a reload while the commit is under way: the Webpay Plus trip with real concurrent HTTP
// requests against a listening app. Whatever the interleaving: one Transbank transaction per claim, one commit,
// one capture, one callback, and a state the seed allows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { startWebpaySimulator, type WebpaySimulator } from '../support/webpay-simulator.ts';
import { payerAtWebpay, webpaySaleFacts, webpayShop } from '../support/webpay-shop.ts';
import { createTransaction, linkParams } from '../modules/transactions/helpers.ts';

let t: TestApp;
let sim: WebpaySimulator;
let shop: TestAccount;
let base: string;
const form = { 'content-type': 'application/x-www-form-urlencoded' };

beforeAll(async () => {
  sim = await startWebpaySimulator();
  t = await startTestApp({ env: { COBRO_MODE: 'production', COBRO_SECRET_KEY: 'ab'.repeat(32) } });
  shop = await webpayShop(t, sim, 'Tienda Webpay');
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address() as { port: number };
  base = `http://127.0.0.1:${address.port}`;
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const facts = (id: string) => webpaySaleFacts(t, id);

const post = (url: string, body: Record<string, string>) =>
  fetch(`${base}${url}`, { method: 'POST', headers: form, body: new URLSearchParams(body) });

async function payAtSimulator(token: string): Promise<string> {
  const back = await payerAtWebpay(sim.url, token);
  return new URL(back.headers.get('location')!).search;
}

describe('Webpay Plus under concurrent requests', () => {
  it('three tabs pressing "Pagar con Webpay" at once open one Transbank transaction', async () => {
    const created = await createTransaction(t, shop, {
      payment: 1,
      urlnotify: 'https://shop.example/n',
    });
    const before = sim.calls.filter((c) => c.op === 'create').length;
    const pages = await Promise.all(
      [1, 2, 3].map(() => post('/gateway/cobro', { ...linkParams(created.url), method: '1' })),
    );
    const bodies = await Promise.all(pages.map((p) => p.text()));
    expect(pages.map((p) => p.status)).toEqual([200, 200, 200]);
    expect(sim.calls.filter((c) => c.op === 'create').length - before).toBe(1);
    const tokens = bodies
      .map((b) => /name="token_ws" value="([0-9a-f]+)"/.exec(b)?.[1])
      .filter(Boolean);
    expect(tokens).toHaveLength(1);
    expect(bodies.filter((b) => b.includes('Estamos procesando tu pago'))).toHaveLength(2);
  });

  it('the return opened three times at once commits once, captures once, calls back once', async () => {
    const created = await createTransaction(t, shop, {
      payment: 1,
      urlnotify: 'https://shop.example/n',
    });
    const page = await (
      await post('/gateway/cobro', { ...linkParams(created.url), method: '1' })
    ).text();
    const token = /name="token_ws" value="([0-9a-f]+)"/.exec(page)![1]!;
    const search = await payAtSimulator(token);
    const returns = await Promise.all(
      [1, 2, 3].map((i) =>
        i === 2
          ? post('/gateway/webpay/return', Object.fromEntries(new URLSearchParams(search)))
          : fetch(`${base}/gateway/webpay/return${search}`),
      ),
    );
    const bodies = await Promise.all(returns.map((r) => r.text()));
    expect(returns.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(bodies.some((b) => b.includes('Pago exitoso'))).toBe(true);
    expect(sim.calls.filter((c) => c.token === token && c.op === 'commit')).toHaveLength(1);
    expect(await facts(created.id)).toEqual({ status: 'success', captures: 1, callbacks: 1 });
  });

  it('a return with token_ws racing one with TBK_TOKEN for the same payment: one decision, one callback', async () => {
    for (let round = 0; round < 3; round++) {
      const created = await createTransaction(t, shop, {
        payment: 1,
        urlnotify: 'https://shop.example/n',
      });
      const page = await (
        await post('/gateway/cobro', { ...linkParams(created.url), method: '1' })
      ).text();
      const token = /name="token_ws" value="([0-9a-f]+)"/.exec(page)![1]!;
      await payAtSimulator(token);
      const [a, b] = await Promise.all([
        fetch(`${base}/gateway/webpay/return?token_ws=${token}`),
        fetch(`${base}/gateway/webpay/return?TBK_TOKEN=${token}`),
      ]);
      expect([a.status, b.status]).toEqual([200, 200]);
      const f = await facts(created.id);
      const committed = sim.calls.filter((c) => c.token === token && c.op === 'commit').length;
      expect(f.callbacks).toBe(1);
      if (f.status === 'success') expect([committed, f.captures]).toEqual([1, 1]);
      else expect([f.status, committed, f.captures]).toEqual(['rejected', 0, 0]);
    }
  });
});
