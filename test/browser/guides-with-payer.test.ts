// The guides' "Try it in the sandbox" walks that need a payer (issue 32: every example in docs/ is run by a test):
// refunds, escrow, conciliation and the mall, each on an account of its own on one real server with a DATA_DIR (so
// the walks' `bin/cobro` commands reach it through the operator socket), each checkout paid in Chromium
// (test/support/doc-walk.ts). Each walk's last answer is checked for what the guide says it shows.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { repoRoot, runCli } from '../support/cli.ts';
import { runWalk, startWalkServer, section, type WalkServer } from '../support/doc-walk.ts';

let server: WalkServer;
let dataDir: string;
let baseUrl: string;
let browser: Browser;

beforeAll(async () => {
  server = await startWalkServer('cobro-guides-');
  ({ dataDir, baseUrl, browser } = server);
});
afterAll(async () => {
  await server?.close();
});

interface Created {
  readonly id: string;
  readonly public_token: string;
  readonly private_token: string;
}

async function account(name: string): Promise<Created> {
  const made = await runCli(['accounts', 'create', '--name', name, '--json'], {
    DATA_DIR: dataDir,
  });
  expect(made.code, made.stderr).toBe(0);
  return JSON.parse(made.stdout) as Created;
}

async function walkOf(guide: string): Promise<unknown[]> {
  const merchant = await account(`Tienda ${guide}`);
  const store = await account('Zapatería Sur');
  const walk = section(
    fs.readFileSync(path.join(repoRoot, 'docs', guide), 'utf8'),
    '## Try it in the sandbox',
  );
  return runWalk(
    walk,
    { DATA_DIR: dataDir },
    new Map([
      ['http://127.0.0.1:8080', baseUrl],
      ['<public token>', merchant.public_token],
      ['<private token>', merchant.private_token],
      ['<account id>', merchant.id],
      ['<store public token>', store.public_token],
    ]),
    browser,
  );
}

describe("the guides' sandbox walks, run as written with a payer", () => {
  it('docs/refunds.md: a partial refund of a paid sale', async () => {
    const answers = await walkOf('refunds.md');
    expect(answers.at(-1)).toMatchObject({ nullify: { amount: 10000 } });
  }, 90_000);

  it('docs/escrow.md: a held sale released', async () => {
    const answers = await walkOf('escrow.md');
    expect(answers.at(-1)).toMatchObject({ transactions: [{ status: 'liquidate' }] });
  }, 90_000);

  it("docs/conciliation.md: the paid sale in its day's batch", async () => {
    const answers = await walkOf('conciliation.md');
    expect(answers.at(-1)).toMatchObject({
      status: 'success',
      conciliation: [{ status: 'paid_out', destiny: 'wallet' }],
    });
  }, 90_000);

  it("docs/mall.md: one payment, each store's line paid", async () => {
    const answers = await walkOf('mall.md');
    expect(answers.at(-1)).toMatchObject({
      status: 'success',
      merchant: [{ status: 'success' }, { status: 'success' }],
    });
  }, 90_000);
});
