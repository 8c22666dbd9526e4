// Decision 810: README and the guides told the payer to "Choose **Webpay Visa**", and docs/mall.md showed a payment's
// `media` as "Webpay Visa"; the checkout lists the method as "Webpay" (its description, in small print below, starts
// with "Visa, Mastercard, ..."), and `media` is that name. Every method a guide names to the payer, and every
// `media` its examples show, is the name of a method the service has.
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { repoRoot } from '../support/cli.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

function guides(): readonly { file: string; text: string }[] {
  const docs = fs
    .readdirSync(path.join(repoRoot, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join('docs', f));
  return ['README.md', ...docs].map((file) => ({
    file,
    text: fs.readFileSync(path.join(repoRoot, file), 'utf8'),
  }));
}

describe('the method a guide tells the payer to choose', () => {
  it('is a method the checkout lists, by the name it shows', async () => {
    const { rows } = await sql<{
      name: string;
    }>`SELECT DISTINCT name FROM payment_methods`.execute(t.ctx.db);
    const names = new Set(rows.map((r) => r.name));
    expect(names).toContain('Webpay');
    const named: string[] = [];
    for (const { file, text } of guides()) {
      for (const m of text.matchAll(/(?:Choose|pay as the payer would:) \*\*([^*]+)\*\*/g)) {
        named.push(m[1]!);
        expect(names.has(m[1]!), `${file}: **${m[1]}**`).toBe(true);
      }
      for (const m of text.matchAll(/"media":"([^"]+)"/g))
        expect(names.has(m[1]!), `${file}: "media":"${m[1]}"`).toBe(true);
    }
    // README and four guides walk a payer through the checkout.
    expect(named.length).toBeGreaterThanOrEqual(5);
  });
});
