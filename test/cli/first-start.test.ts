// What a new user sees on `cobro serve` (issue 32 point 4): a line per step of the first start, then where to go
// next; human-readable lines with LOG_FORMAT=pretty and JSON lines otherwise; production on PGlite over http warned
// about, with the go-live guide named. Real processes on a fresh DATA_DIR.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { repoRoot, startServe } from '../support/cli.ts';
import { freePort } from '../support/net.ts';
import { seedDataDir } from '../support/cli-in-process.ts';
import { prettyLogs } from '../../src/platform/process/logger.ts';

vi.setConfig({ testTimeout: 180_000 });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-first-start-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function waitFor(output: () => string, text: string): Promise<string> {
  for (let i = 0; i < 100 && !output().includes(text); i++)
    await new Promise((r) => setTimeout(r, 100));
  expect(output()).toContain(text);
  return output();
}

describe('the first start of cobro serve', () => {
  it('says each step in readable lines, then the dashboard, the docs and a first signed call; GET / links them', async () => {
    const port = await freePort();
    const dataDir = path.join(dir, 'pretty');
    const server = await startServe(
      { DATA_DIR: dataDir, PORT: String(port), COBRO_WORKERS: '0', LOG_FORMAT: 'pretty' },
      150_000,
    );
    try {
      const out = await waitFor(server.output, 'Cobro is ready');
      const steps = [
        'creating the embedded database (PGlite) in',
        'migrating the database',
        'migrations applied',
        'sandbox demo account created',
        'cobro is serving',
      ];
      let at = -1;
      for (const step of steps) {
        const found = out.indexOf(step);
        expect(found, `"${step}" in:\n${out}`).toBeGreaterThan(at);
        at = found;
      }
      // Human-readable: a level word and the message, no JSON object per line.
      expect(out).toMatch(/INFO.*cobro is serving at http:\/\/127\.0\.0\.1:/);
      expect(out).not.toContain('{"level":');
      const base = `http://127.0.0.1:${port}`;
      expect(out).toContain(`  Dashboard:  ${base}/dashboard`);
      expect(out).toContain(`  API docs:   ${base}/docs`);
      const priv = /private token:\s+([0-9a-f]{32})/.exec(out)![1]!;
      const pub = /public token:\s+([0-9a-f]{32})/.exec(out)![1]!;
      expect(out).toContain(`    SIGN=$(bin/cobro sign --token ${priv} --path /api/account)`);
      expect(out).toContain(
        `    curl -s ${base}/api/account -H "Authorization: Bearer ${pub}" -H "Sign: $SIGN"`,
      );

      const page = await fetch(`${base}/`, {
        headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
      });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      const text = await page.text();
      for (const link of [
        'href="/dashboard"',
        'href="/docs"',
        'bin/cobro sign --token $PRIV --path /api/account',
        `curl -s ${base}/api/account`,
      ])
        expect(text).toContain(link);
      for (const accept of [undefined, '*/*', 'application/json']) {
        const api = await fetch(`${base}/`, { headers: accept === undefined ? {} : { accept } });
        expect(api.headers.get('content-type')).toContain('application/json');
        expect(await api.json()).toEqual({
          status: 'success',
          service: 'cobro',
          mode: 'sandbox',
          links: expect.objectContaining({ dashboard: '/dashboard', docs: '/docs' }),
        });
      }
    } finally {
      await server.stop();
    }
    // The second start opens what is there, in JSON lines (LOG_FORMAT=json), and prints no next steps off a terminal.
    const again = await startServe(
      { DATA_DIR: dataDir, PORT: String(await freePort()), COBRO_WORKERS: '0', LOG_FORMAT: 'json' },
      150_000,
    );
    try {
      const lines = (await waitFor(again.output, 'cobro is serving')).trim().split('\n');
      const messages = lines.map((line) => (JSON.parse(line) as { msg: string }).msg);
      expect(messages[0]).toMatch(/^opening the embedded database \(PGlite\) in /);
      expect(messages.some((m) => m.startsWith('migrating'))).toBe(false);
      expect(again.output()).not.toContain('Cobro is ready');
    } finally {
      await again.stop();
    }
  });

  it('warns that production on PGlite over http is not ready, naming docs/going-live.md; GET / says only name and status', async () => {
    const port = await freePort();
    // The warnings are named at every start (src/start-notes.ts): a migrated database (the suite's snapshot) spares
    // this start a second initdb; the first start above is the fresh one.
    const prodDir = path.join(dir, 'prod');
    await seedDataDir(prodDir);
    const server = await startServe(
      {
        DATA_DIR: prodDir,
        PORT: String(port),
        COBRO_WORKERS: '0',
        LOG_FORMAT: 'json',
        COBRO_MODE: 'production',
        COBRO_ALLOW_INSECURE_PUBLIC_URL: '1',
        COBRO_SECRET_KEY: 'cd'.repeat(32),
      },
      150_000,
    );
    try {
      await waitFor(server.output, 'plain-http PUBLIC_BASE_URL');
      const all = server
        .output()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { level: number; msg: string })
        .filter((l) => l.level === 40)
        .map((l) => l.msg);
      expect(fs.readFileSync(path.join(repoRoot, 'docs', 'going-live.md'), 'utf8')).toContain(
        '## 8. Checklist',
      );
      expect(all).toEqual(
        expect.arrayContaining([
          expect.stringMatching(
            /^production on the embedded PGlite database.*docs\/going-live\.md$/,
          ),
          expect.stringMatching(/plain-http PUBLIC_BASE_URL.*docs\/going-live\.md$/),
        ]),
      );
      const page = await fetch(`http://127.0.0.1:${port}/`, { headers: { accept: 'text/html' } });
      const text = await page.text();
      expect(text).toContain('<h1>Cobro</h1><p>El servicio está funcionando.</p>');
      expect(text).not.toContain('/dashboard');
      expect(await (await fetch(`http://127.0.0.1:${port}/`)).json()).toEqual({
        status: 'success',
        service: 'cobro',
      });
    } finally {
      await server.stop();
    }
  });

  it('chooses readable lines on a terminal and JSON elsewhere unless LOG_FORMAT says', () => {
    expect([
      prettyLogs('auto', true),
      prettyLogs('auto', false),
      prettyLogs('json', true),
      prettyLogs('pretty', false),
    ]).toEqual([true, false, false, true]);
  });
});
