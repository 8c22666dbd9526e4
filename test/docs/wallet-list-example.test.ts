// docs/wallet.md "Reading the wallet": the answer it shows for `GET /api/wallet/list?page=1&per_page=100` is the
// one the server gives, `filter` echoing the request (decision 895; the guide showed the reference's
// `"per_page":1000`, which no request for 100 gets).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { repoRoot } from '../support/cli.ts';
import { apiBlocks } from './doc-examples.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('docs/wallet.md, reading the wallet', () => {
  it("shows the list's filter as the server echoes it", async () => {
    const guide = fs.readFileSync(path.join(repoRoot, 'docs', 'wallet.md'), 'utf8');
    const block = apiBlocks(guide).find((b) => b.script.includes('/api/wallet/list?'));
    const query = /\/api\/wallet\/list\?([^"]+)"/.exec(block?.script ?? '')?.[1];
    expect(query).toBeDefined();
    // The ```json block after it, a blank line apart.
    const after = guide
      .split('\n')
      .slice(block?.line ?? 0)
      .join('\n');
    const json = /```json\n([\s\S]*?)\n```/.exec(after)?.[1] ?? '{}';
    const shown = JSON.parse(json) as { filter: Record<string, unknown> };
    const account = await t.createAccount();
    const res = await t.call(account, {
      method: 'GET',
      url: `/api/wallet/list?${query}`,
      sign: true,
    });
    expect(res.statusCode, res.body).toBe(200);
    const real = res.json() as { current_id: string; filter: Record<string, unknown> };
    expect({ ...shown.filter, id: real.current_id }).toEqual(real.filter);
  });
});
