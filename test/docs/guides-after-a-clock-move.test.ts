// The guides' shell examples on an account whose sandbox clock has moved, as a newcomer's is after README's first
// sale and payout (one day, then one hour: decision 805). The API reads and stamps dates on the account's clock, so
// an example that computes a date from the machine's clock (`date -d '+1 day'`) must still hold after that walk:
// payments.md's `expired` must be ahead of the account's now, and its list of the last week's pending sales must
// show the sales the walk just created; conciliation.md's walk must find its sale's batch.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../support/app.ts';
import { cloneTestDatabase } from '../support/database.ts';
import { freePort } from '../support/net.ts';
import { repoRoot } from '../support/cli.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { createAccount } from '../../src/modules/accounts/service.ts';
import { apiBlocks, DocShell, idReplacements, jsonDocuments } from './doc-examples.ts';

const blockTimeoutMs = 20_000;
let server: RunningServer;

beforeAll(async () => {
  const port = await freePort();
  server = await startServer(
    testConfig({
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    }),
    { handle: await cloneTestDatabase() },
  );
});
afterAll(async () => {
  await server?.close();
});

/** Moves the account's clock as README's walk does: a day for the settlement, an hour for the payout. */
async function readmeClockMoves(publicToken: string): Promise<void> {
  for (const body of ['{"days":1}', '{"hours":1}']) {
    const answer = await fetch(`${server.url}/api/sandbox/clock/advance`, {
      method: 'POST',
      headers: { authorization: `Bearer ${publicToken}`, 'content-type': 'application/json' },
      body,
    });
    expect(answer.status, await answer.clone().text()).toBe(200);
  }
}

/** The payer's step, as the checkout's card form posts it: Webpay, the sandbox VISA that approves. */
async function payWithTheSandboxVisa(checkoutUrl: string): Promise<void> {
  const url = new URL(checkoutUrl);
  const answer = await fetch(`${server.url}/gateway/cobro`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      id: url.searchParams.get('id') ?? '',
      valid: url.searchParams.get('valid') ?? '',
      method: '1',
      card_number: '4051 8856 0044 6623',
      // The server runs on the real clock, and the walk's account a day and an hour ahead of it: the form refuses a
      // past month, so 12/30 failed from 2030-12-31 00:00 in Santiago on (faketime '2030-12-31 04:00:00').
      expiry: '12/99',
      cvv: '123',
    }),
  });
  expect(await answer.text()).toContain('Pago exitoso');
}

async function runAfterClockMove(
  guide: string,
  options: { section?: string; pay?: boolean } = {},
): Promise<unknown[][]> {
  const account = await createAccount(server.runtime.ctx, `Tienda ${path.basename(guide, '.md')}`);
  if (!account.ok) throw new Error(account.error);
  const { publicToken } = account.value;
  await readmeClockMoves(publicToken);
  const shell = new DocShell(
    {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      COBRO: server.url,
      TOKEN: publicToken,
      PUBLIC_TOKEN: publicToken,
    },
    repoRoot,
  );
  const answersByBlock: unknown[][] = [];
  const replacements = new Map<string, string>([
    ['http://127.0.0.1:8080', server.url],
    ['<public token>', publicToken],
  ]);
  try {
    let text = fs.readFileSync(path.join(repoRoot, guide), 'utf8');
    if (options.section !== undefined) {
      text = text.slice(text.indexOf(options.section));
      text = text.slice(0, text.indexOf('\n## ', options.section.length));
    }
    for (const block of apiBlocks(text)) {
      if (block.notRun !== null) continue;
      // Only the blocks that talk to the API with the public token (the others are guides-examples.test.ts's).
      if (/\bsign\b|PRIV/.test(block.script)) continue;
      let script = block.script;
      for (const [from, to] of replacements) script = script.replaceAll(from, to);
      const { stdout, stderr } = await shell.run(script, blockTimeoutMs);
      const answers = jsonDocuments(stdout);
      const failed = answers.filter(
        (a) => typeof a === 'string' || (a as { status?: unknown }).status === 'failed',
      );
      expect(failed, `${guide}:${block.line} after a clock move\n${script}\n${stderr}`).toEqual([]);
      for (const [from, to] of idReplacements(block.shown, answers)) replacements.set(from, to);
      if (options.pay === true)
        for (const a of answers) {
          const url = (a as { url?: unknown }).url;
          if (typeof url === 'string' && url.includes('/gateway/'))
            await payWithTheSandboxVisa(url);
        }
      answersByBlock.push(answers);
    }
  } finally {
    shell.close();
  }
  return answersByBlock;
}

describe("the guides' examples after README's clock moves", () => {
  it('docs/payments.md: expired is ahead of the account clock, and the week list shows its new sales', async () => {
    const answers = (await runAfterClockMove('docs/payments.md')).flat();
    // The creates' answers (`{status: pending, id, url}`), once each: a replayed create answers the same id.
    const created = new Set(
      answers
        .filter(
          (a): a is { id: string; url: string } => typeof (a as { url?: unknown }).url === 'string',
        )
        .map((a) => a.id),
    );
    expect(created.size).toBeGreaterThanOrEqual(2);
    const list = answers.find((a): a is { transaction: { id: string; status: string }[] } =>
      Array.isArray((a as { transaction?: unknown }).transaction),
    );
    expect(list, 'the week list answered no transactions').toBeDefined();
    expect(list?.transaction.length).toBeGreaterThanOrEqual(created.size);
  }, 60_000);

  it("docs/conciliation.md: the walk's paid sale is in the batch it asks for", async () => {
    const answers = (
      await runAfterClockMove('docs/conciliation.md', {
        section: '## Try it in the sandbox',
        pay: true,
      })
    ).flat();
    const sale = answers.find(
      (a): a is { id: string; url: string } => typeof (a as { url?: unknown }).url === 'string',
    );
    expect(answers.at(-1)).toMatchObject({
      status: 'success',
      conciliation: [{ status: 'paid_out', transaction: [{ transaction_id: sale?.id }] }],
    });
  }, 60_000);

  it('docs/callbacks.md: its lists answer after a clock move', async () => {
    expect((await runAfterClockMove('docs/callbacks.md')).length).toBeGreaterThan(0);
  }, 60_000);
});
