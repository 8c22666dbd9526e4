// Shared request bodies for the subscription tests: the reference's own samples (reference §7.1, §8.2); and the
// set-up of a recurring try cancelled while it is with the processor.
import { expect } from 'vitest';
import type { TestAccount, TestApp } from '../../support/app.ts';
import type { AppContext } from '../../../src/platform/context.ts';
import type { PaymentProcessor } from '../../../src/platform/processors/processor.ts';
import { openNextEvent } from '../../../src/modules/subscriptions/billing.ts';
import type { Attempt } from '../../../src/modules/subscriptions/billing-outcome.ts';
import { dayMs } from '../../../src/limits/units.ts';

export const sampleClient = {
  email: 'johndoe@example.com',
  name: 'John Doe',
  rut: '11111111',
  phone: '923122312',
  address: 'Moneda 101',
  country: 'Chile',
  region: 'Metropolitana',
  city: 'Santiago',
  postal_code: '850000',
  additional_parameters: { parameter_1: 'example', parameter_2: 'example' },
};

export async function createSuClient(
  t: TestApp,
  account: TestAccount,
  overrides: Record<string, unknown> = {},
): Promise<string> {
  const res = await t.call(account, {
    method: 'POST',
    url: '/api/suclient',
    sign: true,
    body: { ...sampleClient, ...overrides },
  });
  if (res.statusCode !== 200) throw new Error(`suclient create failed: ${res.body}`);
  return res.json().id as string;
}

export async function createPlan(
  t: TestApp,
  account: TestAccount,
  body: Record<string, unknown> = {},
): Promise<string> {
  const res = await t.call(account, {
    method: 'POST',
    url: '/api/suplan',
    sign: true,
    body: { name: 'Test plan', ...body },
  });
  if (res.statusCode !== 200 || res.json().status !== 'success')
    throw new Error(`suplan create failed: ${res.body}`);
  return res.json().id as string;
}

/** The sandbox's approved Visa (reference §13.2), as the enrolment form takes it. */
const approvedVisa = { card_number: '4051885600446623', expiry: '12/30', cvv: '123' } as const;

/** Posts a card on the hosted enrolment page the `url` of POST /api/sususcription opens. */
async function submitEnrolmentCard(
  t: TestApp,
  url: string,
  card: Readonly<Record<string, string>> = approvedVisa,
) {
  const u = new URL(url);
  return t.app.inject({
    method: 'POST',
    url: '/gateway/registrosuscripcion',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      token: u.searchParams.get('token')!,
      validacion: u.searchParams.get('validacion')!,
      ...card,
    }).toString(),
  });
}

/** A new client subscribed to a new plan (`planBody` on top of a consumption plan) with an approved card: `active`. */
export async function activeSubscription(
  t: TestApp,
  account: TestAccount,
  planBody: Record<string, unknown> = {},
) {
  const plan = await createPlan(t, account, { name: 'Consumo', ...planBody });
  return { ...(await subscribedWithCard(t, account, plan)), plan };
}

/** Sandbox cards for the hosted enrolment page: one whose stored charges pass, one that enrols but declines later. */
export const goodCard = approvedVisa.card_number;
export const decliningCard = '4000000000000341';

/** The payer enrols the card `cardNumber` on the hosted page the `url` opens; throws unless it is registered. */
export async function enrolOn(t: TestApp, url: string, cardNumber: string = goodCard) {
  const page = await submitEnrolmentCard(t, url, { ...approvedVisa, card_number: cardNumber });
  if (!page.body.includes('Tarjeta registrada'))
    throw new Error(`enrolment failed: ${page.body.slice(0, 400)}`);
}

/** A new client subscribed to the existing `plan` (with `extra` fields) and its card enrolled: `active`. */
export async function subscribedWithCard(
  t: TestApp,
  account: TestAccount,
  plan: string,
  extra: Record<string, unknown> = {},
  cardNumber: string = goodCard,
) {
  const client = await createSuClient(t, account, {
    email: `c${Math.random().toString(16).slice(2)}@example.com`,
  });
  const res = await t.call(account, {
    method: 'POST',
    url: '/api/sususcription',
    sign: true,
    body: { plan, client, ...extra },
  });
  if (res.statusCode !== 200) throw new Error(`sususcription create failed: ${res.body}`);
  await enrolOn(t, res.json().url as string, cardNumber);
  return { id: res.json().id as string, client };
}

/** The link of a new card enrolment of the subscription `id` (POST /api/suinscriptionscards), answered 200. */
export async function newCardLink(t: TestApp, account: TestAccount, id: string): Promise<string> {
  const res = await t.call(account, {
    method: 'POST',
    url: '/api/suinscriptionscards',
    sign: true,
    body: { suscription: id },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().url as string;
}

/** Makes the subscription `id`'s next cycle due a second ago by the app's clock. */
export async function cycleDueNow(t: TestApp, id: string) {
  await t.ctx.db
    .updateTable('su_subscriptions')
    .set({ next_cycle_at: new Date(t.clock.now().getTime() - 1000) })
    .where('id', '=', id)
    .execute();
}

/** The payer's side over real HTTP: the card form of the hosted page `url` opens, on the server at `baseUrl`. */
export async function enrolOverHttp(
  baseUrl: string,
  url: string,
  card: Readonly<Record<string, string>> = approvedVisa,
): Promise<string> {
  const u = new URL(url);
  const res = await fetch(`${baseUrl}/gateway/registrosuscripcion`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      token: u.searchParams.get('token')!,
      validacion: u.searchParams.get('validacion')!,
      ...card,
    }).toString(),
  });
  return res.text();
}

/**
 * The set-up the cancellation races share (cancel-during-send, decision 825; cancel-during-charge, decision 910): a
 * new subscription of `account` to a new monthly plan of `amountMinor` with the approved card, the clock moved 32 days
 * to its second cycle, and that cycle's try opened. Each test makes its own order of the charge and the DELETE
 * with `racing` and `cancel`.
 */
export async function tryCancelledInFlight(t: TestApp, account: TestAccount, amountMinor: number) {
  const plan = await createPlan(t, account, { name: 'Mensual', amount: amountMinor });
  const sub = await subscribedWithCard(t, account, plan);
  t.clock.advanceMs(32 * dayMs);
  const attempt = (await openNextEvent(t.ctx, { subscriptionId: sub.id })) as Attempt;
  expect(attempt).toMatchObject({ subscriptionId: sub.id });
  return {
    sub,
    attempt,
    /** The merchant's signed DELETE of the subscription, over the API; it answers `success`. */
    cancel: async () => {
      const del = await t.call(account, {
        method: 'DELETE',
        url: `/api/sususcription/${sub.id}`,
        sign: true,
      });
      expect(del.json()).toMatchObject({ status: 'success' });
    },
    /** `t.ctx` with these of its processor's methods replaced: the try charged through it meets the cancellation. */
    racing: (processor: Partial<PaymentProcessor>): AppContext => ({
      ...t.ctx,
      processor: { ...t.ctx.processor, ...processor },
    }),
    /** The try's cycle as it stands. */
    cycle: () =>
      t.ctx.db
        .selectFrom('su_cycles')
        .select(['status', 'paid_at', 'attempt_key'])
        .where('subscription_id', '=', sub.id)
        .where('cycle_number', '=', attempt.cycleNumber)
        .executeTakeFirstOrThrow(),
  };
}
