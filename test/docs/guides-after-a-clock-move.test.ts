// The guides' shell examples on an account whose sandbox clock has moved, as a newcomer's is after README's first
// sale and payout (one day, then one hour: decision 805). The API reads and stamps dates on the account's clock, so
// an example that computes a date from the machine's clock (`date -d '+1 day'`) must still hold after that walk:
// payments.md's `expired` must be ahead of the account's now, and its list of the last week's pending sales must
// show the sales the walk just created.
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

async function runAfterClockMove(guide: string): Promise<unknown[][]> {
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
  const replacements = new Map<string, string>();
  try {
    for (const block of apiBlocks(fs.readFileSync(path.join(repoRoot, guide), 'utf8'))) {
      if (block.notRun !== null) continue;
      // Only the blocks that talk to the API with the public token (the others are guides-examples.test.ts's).
      if (/\bsign\b|<|PRIV/.test(block.script)) continue;
      let script = block.script;
      for (const [from, to] of replacements) script = script.replaceAll(from, to);
      const { stdout, stderr } = await shell.run(script, blockTimeoutMs);
      const answers = jsonDocuments(stdout);
      const failed = answers.filter(
        (a) => typeof a === 'string' || (a as { status?: unknown }).status === 'failed',
      );
      expect(failed, `${guide}:${block.line} after a clock move\n${script}\n${stderr}`).toEqual([]);
      for (const [from, to] of idReplacements(block.shown, answers)) replacements.set(from, to);
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

  it('docs/callbacks.md: its lists answer after a clock move', async () => {
    expect((await runAfterClockMove('docs/callbacks.md')).length).toBeGreaterThan(0);
  }, 60_000);
});
