// Decision 815 (decision 800's low finding): a subscription charge's callback (`subscription.charge`, reference
// §7.15) carries the sale's number as `transaction_id`. It was written `Number(payment.number)`, so past 2^53 - 1 the
// callback named another sale (9007199254740993 became 9007199254740992). The number is now written exact.
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { createPlan, subscribedWithCard } from './helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

it("a charge's callback names its sale's number exactly past 2^53 - 1", async () => {
  // Sale numbers from here on are past the largest integer a double holds exactly.
  await sql`ALTER TABLE transactions ALTER COLUMN number RESTART WITH 9007199254740993`.execute(
    t.ctx.db,
  );
  const merchant = await t.createAccount('Exacta');
  const plan = await createPlan(t, merchant, {
    name: 'Caja',
    amount: 9990,
    interval: 'month',
    url_notify_payment: 'https://merchant.example/pay',
  });
  await subscribedWithCard(t, merchant, plan);
  const advanced = await t.call(merchant, {
    method: 'POST',
    url: '/api/sandbox/clock/advance',
    body: { days: 32 },
  });
  expect(advanced.statusCode, advanced.body).toBe(200);
  const charges = await sql<{ number: string; body: string }>`
    SELECT x.number::text AS number, n.body FROM notifications n
    JOIN transactions x ON n.body LIKE '%"verification_key":"' || x.verification_key || '"%'
    WHERE n.event_type = 'subscription.charge' AND n.account_id = ${merchant.id}`.execute(t.ctx.db);
  expect(charges.rows.length).toBeGreaterThan(0);
  for (const row of charges.rows) {
    expect(BigInt(row.number) > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
    expect(row.body).toContain(`"transaction_id":${row.number},`);
  }
});
