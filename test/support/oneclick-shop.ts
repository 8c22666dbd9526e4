// A production account whose subscriptions charge through Transbank's Oneclick Mall, set up as an operator does
// (`cobro accounts set-processor`) against the local simulator, and the payer's way through an inscription.
import { expect } from 'vitest';
import { dispatch } from '../../src/cli/dispatch.ts';
import { startTestApp, type TestAccount, type TestApp } from './app.ts';
import { startOneclickSimulator, type OneclickSimulator } from './oneclick-simulator.ts';

/** The Visa the simulator's page registers. */
export const oneclickVisa = '4051885600446623';

const form = { 'content-type': 'application/x-www-form-urlencoded' };

/** `cobro accounts set-processor` with the simulator's Oneclick Mall keys, child store `childCommerceCode`. */
export function setOneclickProcessor(
  t: TestApp,
  sim: OneclickSimulator,
  accountId: string,
  childCommerceCode: string = sim.childCommerceCode,
) {
  return dispatch(
    [
      'accounts',
      'set-processor',
      accountId,
      '--oneclick-commerce-code',
      sim.commerceCode,
      '--oneclick-child-commerce-code',
      childCommerceCode,
      '--oneclick-api-key',
      sim.apiKey,
      '--environment',
      sim.url,
    ],
    t.ctx,
  );
}

/** A new account whose subscriptions charge through the Oneclick simulator `sim`. */
async function oneclickShop(
  t: TestApp,
  sim: OneclickSimulator,
  name: string,
): Promise<TestAccount> {
  const shop = await t.createAccount(name);
  const set = await setOneclickProcessor(t, sim, shop.id);
  expect(set.exitCode, set.stderr).toBe(0);
  return shop;
}

/**
 * A started Oneclick simulator, a production app (secret key `secretByte` repeated) and a new account `name` whose
 * subscriptions charge through the simulator. The caller closes `t` and `sim`.
 */
export async function startOneclickShop(name: string, secretByte: string) {
  const sim = await startOneclickSimulator();
  try {
    const t = await startTestApp({
      env: { COBRO_MODE: 'production', COBRO_SECRET_KEY: secretByte.repeat(32) },
    });
    return { sim, t, shop: await oneclickShop(t, sim, name) };
  } catch (err) {
    await sim.close();
    throw err;
  }
}

/**
 * A new subscription of `client` to `plan` (POST /api/sususcription): its id, and `start`, which opens an inscription
 * on its link, registers `card` on the simulator's page and gives the inscription's TBK_TOKEN and the path of
 * Cobro's return URL the simulator sends the payer back to (not yet followed).
 */
export async function oneclickInscription(
  t: TestApp,
  sim: OneclickSimulator,
  shop: TestAccount,
  input: { plan: string; client: string; card: string },
) {
  const res = await t.call(shop, {
    method: 'POST',
    url: '/api/sususcription',
    sign: true,
    body: { plan: input.plan, client: input.client },
  });
  const created = res.json() as { id: string; url: string };
  const u = new URL(created.url);
  const link = new URLSearchParams({
    token: u.searchParams.get('token')!,
    validacion: u.searchParams.get('validacion')!,
  }).toString();
  const start = async (): Promise<{ token: string; back: string }> => {
    const page = await t.app.inject({
      method: 'POST',
      url: '/gateway/registrosuscripcion/oneclick',
      headers: form,
      payload: link,
    });
    const token = /name="TBK_TOKEN" value="([0-9a-f]+)"/.exec(page.body)![1]!;
    const back = await fetch(`${sim.url}/oneclick/enrol`, {
      method: 'POST',
      headers: form,
      body: new URLSearchParams({ TBK_TOKEN: token, card: input.card }),
      redirect: 'manual',
    });
    const location = new URL(back.headers.get('location')!);
    return { token, back: `${location.pathname}${location.search}` };
  };
  return { id: created.id, start };
}

/** A subscription as `oneclickInscription` makes it, the payer's return followed: the card shows as registered. */
export async function oneclickEnrolled(
  t: TestApp,
  sim: OneclickSimulator,
  shop: TestAccount,
  input: { plan: string; client: string; card: string },
): Promise<{ id: string; token: string }> {
  const s = await oneclickInscription(t, sim, shop, input);
  const { token, back } = await s.start();
  const done = await t.app.inject({ method: 'GET', url: back });
  expect(done.body).toContain('Tarjeta registrada');
  return { id: s.id, token };
}
