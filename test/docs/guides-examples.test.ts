// Every shell example of the guides that call the API, run as written against a real server (issue 32: "every
// example in docs/ is run by a test, so none goes stale again"). Each guide's ```sh blocks run in order in one bash
// (test/docs/doc-examples.ts); the test only points the guides' `http://127.0.0.1:8080`, `<public token>` and
// `<private token>` at its server and account, and sets $COBRO/$API and $TOKEN/$PUB/$PUBLIC_TOKEN/$PRIV the way
// each guide says to. Every answer must be JSON and none a failure. A block that cannot run in the sandbox is marked
// `<!-- example: not run: <reason> -->` in the guide; those are few, and each says why.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../support/app.ts';
import { cloneTestDatabase } from '../support/database.ts';
import { freePort } from '../support/net.ts';
import { repoRoot } from '../support/cli.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { createAccount } from '../../src/modules/accounts/service.ts';
import {
  apiBlocks,
  DocShell,
  idReplacements,
  jsonDocuments,
  shownButNotAnswered,
} from './doc-examples.ts';

// README.md's walk needs a payer in a browser between its blocks: test/browser/first-hour.test.ts runs it.
const guides = [
  'docs/payments.md',
  'docs/wallet.md',
  'docs/marketplace.md',
  'docs/events.md',
  'docs/subscriptions.md',
  'docs/callbacks.md',
] as const;
const notRunMax = 6;
const answerLaterMax = 3;
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

/** A failure the server answered: the seed's envelope (`status: failed`) or an HTTP error body. */
function failure(answer: unknown): boolean {
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer))
    return typeof answer === 'string';
  const a = answer as Record<string, unknown>;
  return a.status === 'failed' || (typeof a.statusCode === 'number' && a.statusCode >= 400);
}

async function runGuide(guide: string): Promise<number> {
  // Each guide starts from an account of its own, as a reader following it would.
  const account = await createAccount(server.runtime.ctx, `Tienda ${path.basename(guide, '.md')}`);
  if (!account.ok) throw new Error(account.error);
  const { publicToken, privateToken } = account.value;
  const shell = new DocShell(
    {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      COBRO: server.url,
      API: server.url,
      TOKEN: publicToken,
      PUB: publicToken,
      PUBLIC_TOKEN: publicToken,
      PRIV: privateToken,
    },
    repoRoot,
  );
  const replacements = new Map<string, string>([
    ['http://127.0.0.1:8080', server.url],
    ['<public token>', publicToken],
    ['<private token>', privateToken],
  ]);
  let ran = 0;
  try {
    for (const block of apiBlocks(fs.readFileSync(path.join(repoRoot, guide), 'utf8'))) {
      if (block.notRun !== null) continue;
      let script = block.script;
      for (const [from, to] of replacements) script = script.replaceAll(from, to);
      const { stdout, stderr } = await shell.run(script, blockTimeoutMs);
      const answers = jsonDocuments(stdout);
      const where = `${guide}:${block.line}`;
      // A block that only sets things up (`sign() {…}`, `API=…`) answers nothing; one with a curl must.
      if (/\bcurl\b/.test(script))
        expect(answers.length, `${where} printed no answer (${stderr})`).toBeGreaterThan(0);
      expect(answers.filter(failure), `${where}\n${script}`).toEqual([]);
      // The answer the guide shows after the block is the one the reader gets at that step (decision 1095).
      if (block.answerLater === null)
        expect(
          shownButNotAnswered(block.shown, answers),
          `${where} shows what it did not answer`,
        ).toEqual([]);
      for (const [from, to] of idReplacements(block.shown, answers)) replacements.set(from, to);
      ran += 1;
    }
  } finally {
    shell.close();
  }
  return ran;
}

describe("the guides' shell examples, run as written", () => {
  for (const guide of guides) {
    it(guide, async () => {
      expect(await runGuide(guide)).toBeGreaterThan(0);
    }, 60_000);
  }

  it('leaves out only a few blocks, each with its reason', () => {
    const notRun = guides.flatMap((guide) =>
      apiBlocks(fs.readFileSync(path.join(repoRoot, guide), 'utf8'))
        .filter((b) => b.notRun !== null)
        .map((b) => ({ where: `${guide}:${b.line}`, reason: b.notRun ?? '' })),
    );
    expect(notRun.length).toBeGreaterThan(0);
    expect(notRun.length).toBeLessThanOrEqual(notRunMax);
    for (const s of notRun) expect(s.reason.length, s.where).toBeGreaterThan(15);
  });

  it('shows an answer of a later state only in a few blocks, each saying when', () => {
    const later = guides.flatMap((guide) =>
      apiBlocks(fs.readFileSync(path.join(repoRoot, guide), 'utf8'))
        .filter((b) => b.answerLater !== null)
        .map((b) => ({ where: `${guide}:${b.line}`, when: b.answerLater ?? '' })),
    );
    expect(later.length).toBeLessThanOrEqual(answerLaterMax);
    for (const s of later) expect(s.when.length, s.where).toBeGreaterThan(15);
  });
});
