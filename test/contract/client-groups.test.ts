// Decision 700 (a guard, passing before it, from review-contract): a call through packages/client for the groups
// test/client does not cover (subscriptions, refunds, mall, conciliation, disputes), against a listening app; each
// answer validated against the document.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFailed, type CobroClient } from '../../packages/client/src/index.ts';
import { operations } from '../../packages/client/src/operations.ts';
import type { TestAccount } from '../support/app.ts';
import { startLiveApp, type LiveApp } from '../client/live-app.ts';
import { payByCard } from '../modules/transactions/helpers.ts';

let live: LiveApp;
let merchant: TestAccount;
let client: CobroClient;
let doc: Record<string, any>;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);

beforeAll(async () => {
  live = await startLiveApp();
  merchant = await live.t.createAccount('Client groups merchant');
  client = live.clientFor(merchant);
  doc = (await live.t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
});
afterAll(async () => {
  await live.close();
});

function documented(op: keyof typeof operations, res: { httpStatus: number; body: unknown }) {
  const spec = operations[op];
  const schema =
    doc.paths[spec.path]?.[spec.method.toLowerCase()]?.responses?.[String(res.httpStatus)]
      ?.content?.['application/json']?.schema;
  expect(schema, `${op} ${res.httpStatus} documented`).toBeDefined();
  const validate = ajv.compile(schema);
  expect(validate(res.body) ? [] : validate.errors, `${op} ${JSON.stringify(res.body)}`).toEqual(
    [],
  );
}

describe('CobroClient, groups beyond test/client', () => {
  it('subscriptions: client by e-mail, plan, subscription, card link, charge, delete', async () => {
    const email = 'sus.client+1@example.com';
    const c = await client.createSubscriptionClient({ email, name: 'Sus', phone: '923122312' });
    expect(c.httpStatus).toBe(200);
    documented('createSubscriptionClient', c);
    const byEmail = await client.getSubscriptionClient(email);
    expect(byEmail.httpStatus).toBe(200);
    documented('getSubscriptionClient', byEmail);
    const upd = await client.updateSubscriptionClient(email, { name: 'Sus 2' });
    expect(upd.httpStatus).toBe(200);
    documented('updateSubscriptionClient', upd);
    const customers = await client.listSubscriptionCustomers();
    expect(customers.httpStatus).toBe(200);
    documented('listSubscriptionCustomers', customers);
    const plan = await client.createPlan({
      name: 'Plan',
      amount: 5000,
      type: 'fixed',
      interval: 'month',
    });
    expect(plan.httpStatus).toBe(200);
    documented('createPlan', plan);
    if (isFailed(plan.body) || isFailed(c.body)) throw new Error('refused');
    const planId = (plan.body as { id: string }).id;
    documented('listPlans', await client.listPlans());
    documented('getPlan', await client.getPlan(planId));
    const sub = await client.createSubscription({ plan: planId, client: (c.body as any).id });
    expect(sub.httpStatus).toBe(200);
    documented('createSubscription', sub);
    const subId = (sub.body as { id: string }).id;
    documented('listSubscriptions', await client.listSubscriptions({ register: true }));
    documented('listSubscriptionsV3', await client.listSubscriptionsV3({ register: true }));
    documented('getSubscription', await client.getSubscription(subId));
    documented(
      'newSubscriptionCardLink',
      await client.newSubscriptionCardLink({ suscription: subId }),
    );
    const charge = await client.chargeSubscription({
      suscription: subId,
      amount: 1000,
      order: 'sc-1',
    });
    documented('chargeSubscription', charge);
    const delCard = await client.deleteSubscriptionCard({
      card: 'surec804a8ed60c0a8cb8839',
    } as never);
    documented('deleteSubscriptionCard', delCard);
    const ended = await client.deleteSubscription(subId);
    expect(ended.httpStatus).toBe(200);
    documented('deleteSubscription', ended);
    const gone = await client.deleteSubscriptionClient(email);
    expect(gone.httpStatus).toBe(200);
    documented('deleteSubscriptionClient', gone);
  });

  it('refunds: nullification of a paid sale, read back by transaction id', async () => {
    const { created } = await payByCard(live.t, merchant, { order: 'cg-paid', amount: 20000 });
    const n = await client.createNullification({
      id: created.id,
      amount: 5000,
      subject: 'devolución',
    });
    expect(n.httpStatus).toBe(200);
    expect(n.body).toMatchObject({ status: 'success' });
    documented('createNullification', n);
    const got = await client.getNullification(created.id);
    expect(got.httpStatus).toBe(200);
    documented('getNullification', got);
    const tx = await client.getTransaction(created.id);
    documented('getTransaction', tx);
    const list = await client.listTransactions({ success: 'true' });
    documented('listTransactions', list);
    const none = await client.listTransactions({ date_init: '2026-01-01', date_end: '2026-01-02' });
    documented('listTransactions', none);
  });

  it('mall, conciliation and disputes', async () => {
    const store = await live.t.createAccount('Client groups store');
    const mall = await client.createMall({
      email: 'johndoe@example.com',
      payment: 1,
      order: 'cg-mall',
      urlreturn: 'https://shop.example.com/return',
      merchant: [[store.publicToken, '30000', 'item1', null, '4545']],
    } as never);
    expect(mall.httpStatus).toBe(200);
    documented('createMall', mall);
    documented('getMall', await client.getMall((mall.body as { id: string }).id));
    const conc = await client.getConciliation({ date_init: '2026-03-01', date_end: '2026-03-10' });
    expect(conc.httpStatus).toBe(200);
    documented('getConciliation', conc);
    const csv = await client.exportConciliationCsv({
      date_init: '2026-03-01',
      date_end: '2026-03-10',
    });
    expect(csv.httpStatus).toBe(200);
    expect(typeof csv.body).toBe('string');
    documented('listDisputes', await client.listDisputes());
    documented('listNotifications', await client.listNotifications());
  });
});
