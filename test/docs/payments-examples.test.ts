// The create examples of docs/payments.md, run as written: each ```sh block of "1. Create a transaction" goes to
// bash with $COBRO and $TOKEN set, its curl talks to a real server, and its answer is checked. The first example's
// `expired` is computed from today by the block itself, so it cannot go stale (issue 32: it once named a past date).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../support/app.ts';
import { cloneTestDatabase } from '../support/database.ts';
import { freePort } from '../support/net.ts';
import { repoRoot } from '../support/cli.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { createAccount } from '../../src/modules/accounts/service.ts';

const run = promisify(execFile);
const doc = fs.readFileSync(path.join(repoRoot, 'docs', 'payments.md'), 'utf8');

/** The ```sh blocks between a section's heading and the next `## `. */
function shellBlocks(heading: string): string[] {
  const start = doc.indexOf(`\n${heading}\n`);
  expect(start, `docs/payments.md has no "${heading}"`).toBeGreaterThan(0);
  const end = doc.indexOf('\n## ', start + heading.length + 2);
  const section = doc.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

let server: RunningServer;
let token: string;

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
  const account = await createAccount(server.runtime.ctx, 'Tienda Docs');
  if (!account.ok) throw new Error(account.error);
  token = account.value.publicToken;
});
afterAll(async () => {
  await server?.close();
});

async function runBlock(script: string): Promise<Record<string, unknown>> {
  const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', COBRO: server.url, TOKEN: token },
    timeout: 20_000,
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe('docs/payments.md, "1. Create a transaction"', () => {
  it('has the create and the Idempotency-Key examples, and both work as written', async () => {
    const blocks = shellBlocks('## 1. Create a transaction');
    expect(blocks).toHaveLength(2);
    const [create, keyed] = blocks as [string, string];
    const created = await runBlock(create);
    expect(created).toEqual({
      status: 'pending',
      id: expect.stringMatching(/^trx[0-9a-f]{17}$/),
      url: expect.stringContaining(`${server.url}/gateway/cobro?id=`),
    });
    // Its `expired` was a week ahead (room for sandbox clock moves, decision 805), give or take the minute the test
    // took and a daylight-saving change.
    const row = await server.runtime.ctx.db
      .selectFrom('transactions')
      .select(['expires_at', 'created_at'])
      .where('id', '=', String(created.id))
      .executeTakeFirstOrThrow();
    const aheadMs = new Date(row.expires_at!).getTime() - new Date(row.created_at).getTime();
    expect(Math.abs(aheadMs - 7 * 24 * 3_600_000)).toBeLessThan(3 * 3_600_000);
    const first = await runBlock(keyed);
    expect(first).toMatchObject({ status: 'pending' });
    expect(await runBlock(keyed)).toEqual(first);
  });
});

describe('docs/payments.md, "6. Fees and settlement": the sandbox clock\'s bounds (decision 1095)', () => {
  it('answers the refusals the section names', async () => {
    const advance = async (body: object) => {
      const res = await fetch(`${server.url}/api/sandbox/clock/advance`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(400);
      return ((await res.json()) as { message_error: string }).message_error;
    };
    const section = doc.slice(doc.indexOf('## 6. Fees and settlement'));
    expect(section).toContain(`\`400 ${await advance({ days: 401 })}\``);
    expect(section).toContain(`\`400 ${await advance({ days: 400, hours: 1 })}\``);
    // One unit alone past the bound names itself, as the section says of `hours:`.
    expect(await advance({ hours: 401 * 24 })).toBe('hours:too large');
    expect(section).toContain('`hours:`');
  });
});
