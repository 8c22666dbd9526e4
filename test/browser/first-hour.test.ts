// A newcomer's first hour, as the README tells it (issue 32): a fresh server on an empty DATA_DIR (what `npm start`
// runs), the demo tokens its first start prints, then every shell block of README "A first signed call" and "Your
// first sale and payout" run as written in one bash, the payer's step done in Chromium with the card the README
// names (test/support/doc-walk.ts). It ends with the payout paid.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { repoRoot, type ServeProcess } from '../support/cli.ts';
import {
  runWalk,
  startWalkServer,
  sandboxCard,
  section,
  type WalkServer,
} from '../support/doc-walk.ts';

const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
const walk = `${section(readme, '## A first signed call')}\n${section(readme, '## Your first sale and payout (sandbox)')}`;

let server: WalkServer;
let serve: ServeProcess;
let baseUrl: string;
let browser: Browser;

beforeAll(async () => {
  server = await startWalkServer('cobro-first-hour-');
  ({ serve, baseUrl, browser } = server);
});
afterAll(async () => {
  await server?.close();
});

/** The demo account's tokens, from the lines the first start printed. */
function printedTokens(): { publicToken: string; privateToken: string } {
  const publicToken = /public token:\s+(\w+)/.exec(serve.output())?.[1];
  const privateToken = /private token:\s+(\w+)/.exec(serve.output())?.[1];
  if (publicToken === undefined || privateToken === undefined)
    throw new Error(`the first start printed no tokens:\n${serve.output()}`);
  return { publicToken, privateToken };
}

describe('the README, from a fresh start to a paid payout', () => {
  it('names the card the walk pays with', () => {
    expect(walk).toContain(`**${sandboxCard.number}**`);
    expect(walk).toContain(`CVV **${sandboxCard.cvv}**`);
  });

  it('runs every block as written, with the payer paying in the browser', async () => {
    const { publicToken, privateToken } = printedTokens();
    const answers = await runWalk(
      walk,
      {},
      new Map([
        ['http://127.0.0.1:8080', baseUrl],
        ['<public token>', publicToken],
        ['<private token>', privateToken],
      ]),
      browser,
    );
    const wallet = answers.find(
      (a) => typeof (a as { amount_available?: unknown }).amount_available === 'number',
    );
    expect((wallet as { amount_available: number }).amount_available).toBeGreaterThan(10_000);
    expect(answers.at(-1)).toMatchObject({ payout: { status: 'success' } });
  }, 120_000);
});
