// Issue 14 point 5: no card number or CVV is kept. A real `cobro serve` (most verbose logging) takes payments on
// its hosted pages with the sandbox's test cards, approved and declined, typed with and without spaces: the
// checkout (`/gateway/cobro`), the mall (`/gateway/mall/{id}`) and the subscription card enrolment
// (`/gateway/registrosuscripcion`), then charges the enrolled card (`POST /api/sutransaction`). Then every byte it
// left is scanned: the PGlite DATA_DIR's files (raw), or a `pg_dump` of the PostgreSQL database, and everything it
// logged. No card number (with or without spaces or dashes) and no CVV may appear.
// The CVV is a distinctive 4-digit value the sandbox's debit card accepts with any CVV, searched as a whole token
// (no digit or letter either side, so a hex id or a longer number holding the digits is not a hit). A canary (a
// transaction's subject) must be found in the same bytes: the scan sees stored data, so its silence means something.
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServe } from '../support/cli.ts';
import { serveOn, suiteEngine } from './engines.ts';
import { call, cardExpiry, demoCredentials, postForm, type Credentials } from './load.ts';

/** The CVV typed with every card that does not need its own: no year, amount or time of this test is 8297. */
const cvv = '8297';
const cards = {
  debitApproved: '4051884239937763',
  creditApproved: '4051885600446623',
  creditDeclined: '5186059559590568',
  amex: '370000000002032',
  storedDeclined: '4000000000000341',
};
const spaced = (n: string) => n.replace(/(\d{4})(?=\d)/g, '$1 ');
const dashed = (n: string) => n.replace(/(\d{4})(?=\d)/g, '$1-');

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

/** Every hit of each needle in the bytes, with 30 bytes of context either side. */
function scan(where: string, bytes: Buffer, needles: readonly string[]): string[] {
  const text = bytes.toString('latin1');
  const hits: string[] = [];
  for (const n of needles) {
    const re = /^\d{3,4}$/.test(n)
      ? new RegExp(`(?<![0-9A-Za-z])${n}(?![0-9A-Za-z])`, 'g')
      : new RegExp(n.replace(/[-]/g, '\\-'), 'g');
    for (const m of text.matchAll(re))
      hits.push(
        `${where}: ${n} in ${JSON.stringify(text.slice(Math.max(0, m.index - 30), m.index + n.length + 30))}`,
      );
  }
  return hits;
}

async function drive(baseUrl: string, who: Credentials, canary: string): Promise<void> {
  const pay = async (order: string, card: string, cardCvv: string) => {
    const created = await call(baseUrl, who, 'POST', '/api/transaction', {
      email: 'payer@example.com',
      order,
      subject: canary,
      amount: 4_321,
    });
    expect(created.status, created.text).toBe(200);
    const u = new URL(created.json.url as string);
    const page = await postForm(baseUrl, u.pathname, {
      ...Object.fromEntries(u.searchParams),
      method: '1',
      card_number: card,
      expiry: cardExpiry,
      cvv: cardCvv,
    });
    expect(page.status, page.text.slice(0, 300)).toBeLessThan(400);
    return created.json.id as string;
  };
  const status = async (id: string) =>
    (await call(baseUrl, who, 'GET', `/api/transaction/${id}`)).json.status;
  expect(await status(await pay('scan-1', spaced(cards.debitApproved), cvv))).toBe('success');
  expect(await status(await pay('scan-2', cards.debitApproved, cvv))).toBe('success');
  expect(await status(await pay('scan-3', cards.creditApproved, '123'))).toBe('success');
  expect(await status(await pay('scan-4', spaced(cards.amex), '1234'))).toBe('success');
  // Declined: the wrong CVV on a card that checks it, and the card the sandbox always declines.
  expect(await status(await pay('scan-5', spaced(cards.creditApproved), cvv))).toBe('pending');
  expect(await status(await pay('scan-6', cards.creditDeclined, cvv))).toBe('pending');

  const mall = await call(baseUrl, who, 'POST', '/api/mall', {
    email: 'payer@example.com',
    payment: 1,
    order: 'scan-mall',
    urlreturn: 'https://shop.example.com/return',
    merchant: [[who.publicToken, 2_500, 'item', null, 'scan-mall-1']],
  });
  expect(mall.json.status, mall.text).toBe('success');
  const mallPage = await postForm(baseUrl, new URL(mall.json.url as string).pathname, {
    method: '1',
    card_number: spaced(cards.debitApproved),
    expiry: cardExpiry,
    cvv,
  });
  expect(mallPage.status).toBeLessThan(400);
  expect((await call(baseUrl, who, 'GET', `/api/mall/${mall.json.id as string}`)).json.status).toBe(
    'success',
  );

  const plan = await call(baseUrl, who, 'POST', '/api/suplan', {
    name: 'Scan plan',
    amount: 9_990,
  });
  const client = await call(baseUrl, who, 'POST', '/api/suclient', {
    email: 'scan@example.com',
    name: 'Scan',
    rut: '11111111',
    phone: '923122312',
  });
  const sub = await call(baseUrl, who, 'POST', '/api/sususcription', {
    plan: plan.json.id as string,
    client: client.json.id as string,
  });
  expect(sub.json.url, sub.text).toBeDefined();
  const link = new URL(sub.json.url as string);
  const enrol = (card: string, cardCvv: string) =>
    postForm(baseUrl, '/gateway/registrosuscripcion', {
      token: link.searchParams.get('token')!,
      validacion: link.searchParams.get('validacion')!,
      card_number: card,
      expiry: cardExpiry,
      cvv: cardCvv,
    });
  expect((await enrol(cards.creditDeclined, cvv)).text).toContain('rechazada');
  expect((await enrol(spaced(cards.debitApproved), cvv)).text).toContain('Tarjeta registrada');
  const charged = await call(baseUrl, who, 'POST', '/api/sutransaction', {
    suscription: sub.json.id as string,
    amount: 1_500,
    order: 'scan-su',
  });
  expect(charged.json.status, charged.text).toBe('success');
  // A card that enrols and then declines, and a month and a half of recurring billing: a cycle, its retries.
  const again = new URL(
    (
      await call(baseUrl, who, 'POST', '/api/suinscriptionscards', {
        suscription: sub.json.id as string,
      })
    ).json.url as string,
  );
  const reenrol = await postForm(baseUrl, '/gateway/registrosuscripcion', {
    token: again.searchParams.get('token')!,
    validacion: again.searchParams.get('validacion')!,
    card_number: dashed(cards.storedDeclined),
    expiry: cardExpiry,
    cvv,
  });
  expect(reenrol.text).toContain('Tarjeta registrada');
  const billed = await call(baseUrl, who, 'POST', '/api/sandbox/clock/advance', { days: 40 });
  expect(
    (billed.json.processed as Record<string, number>)['subscription-billing'],
    billed.text,
  ).toBeGreaterThan(1);
}

describe('no card number or CVV is kept', () => {
  it('leaves none in the database files, pg_dump or the logs after payments on every hosted page', {
    timeout: 120_000,
  }, async () => {
    const engine = await suiteEngine();
    const canary = `canary-${crypto.randomBytes(6).toString('hex')}`;
    try {
      const { env, baseUrl } = await serveOn(engine, { LOG_LEVEL: 'trace' });
      const server = await startServe(env);
      try {
        await drive(baseUrl, demoCredentials(server.output()), canary);
      } finally {
        await server.stop();
      }
      const logs = Buffer.from(server.output());
      const sources: Array<[string, Buffer]> = [['server log', logs]];
      if (engine.url !== null) {
        sources.push([
          'pg_dump',
          execFileSync('pg_dump', ['--no-owner', engine.url], { maxBuffer: 512 * 1024 * 1024 }),
        ]);
      }
      for (const file of filesUnder(engine.dataDir))
        sources.push([path.relative(engine.dataDir, file), fs.readFileSync(file)]);

      const stored = sources
        .filter(([where]) => where !== 'server log')
        .flatMap(([where, bytes]) => scan(where, bytes, [canary]));
      expect(
        stored.length,
        'the canary is not in the scanned data: the scan would see nothing',
      ).toBeGreaterThan(0);
      expect(logs.toString()).toContain('/gateway/');

      const needles = [...Object.values(cards).flatMap((n) => [n, spaced(n), dashed(n)]), cvv];
      const hits = sources.flatMap(([where, bytes]) => scan(where, bytes, needles));
      expect(hits).toEqual([]);
      const scanned = sources.reduce((sum, [, bytes]) => sum + bytes.length, 0);
      console.info(
        `secret scan (${engine.name}): ${sources.length} sources, ${(scanned / 1e6).toFixed(1)} MB, ${needles.length} needles, canary found ${stored.length} times, 0 hits`,
      );
    } finally {
      await engine.dispose();
    }
  });
});
