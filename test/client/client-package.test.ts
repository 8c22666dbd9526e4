// The client as merchants get it: packages/client built by tsc, packed by npm, installed from the tarball into a
// scratch project with no registry, type-checked there without typebox or Node typings, and run on the machine's
// own Node (20, not the pinned 24) against a listening sandbox server.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/cli.ts';
import { startLiveApp, type LiveApp } from './live-app.ts';

const run = promisify(execFile);
const packageDir = path.join(repoRoot, 'packages/client');
const tscBin = path.join(repoRoot, 'node_modules/typescript/bin/tsc');
/** The Node the machine ships (override with COBRO_SYSTEM_NODE); the point is that it is not the pinned one. */
const systemNode = process.env.COBRO_SYSTEM_NODE ?? '/usr/bin/node';

// What a merchant's code does: one signed GET, one POST, a signed GET with a query, and a call with a wrong key.
const consumerScript = `
import { CobroClient, isFailed } from 'cobro-client';
const options = { baseUrl: process.env.COBRO_BASE_URL, publicToken: process.env.COBRO_PUBLIC_TOKEN, privateToken: process.env.COBRO_PRIVATE_TOKEN };
const cobro = new CobroClient(options);
// A caller's signal joins the client's timeout (AbortSignal.any, or by hand where it is missing).
const account = await cobro.getAccount({ signal: new AbortController().signal });
const credited = await cobro.creditSandboxWallet({ amount: 7000, currency: 'CLP' });
const wallet = await cobro.getWallet({ currency: 'CLP', per_page: 5 });
const forged = await new CobroClient({ ...options, privateToken: 'not-the-key' }).getAccount();
console.log(JSON.stringify({ node: process.version, globalCrypto: typeof globalThis.crypto, signalAny: typeof AbortSignal.any, account, credited: credited.httpStatus, wallet, forged, failed: isFailed(forged.body) }));
`;

// The same calls in TypeScript: the published declarations must type them with nothing else installed.
const consumerTypes = `
import { CobroClient, isFailed, type CreatePayoutInput } from 'cobro-client';
const cobro = new CobroClient({ baseUrl: 'http://127.0.0.1:8080', publicToken: 'pub', privateToken: 'priv' });
const account = await cobro.getAccount();
if (!isFailed(account.body)) { const id: string = account.body.id; void id; }
const payout: CreatePayoutInput = { email: 'a@example.com', subject: 's', currency: 'CLP', order: '1', amount: 1000,
  accountbank_name: 'A', accountbank_rut: '111111111', accountbank_sbif: '0001', accountbank_type: '1', accountbank_num: '1' };
const created = await cobro.createPayout(payout, { idempotencyKey: 'k' });
if (!isFailed(created.body)) { const payoutId: string = created.body.identifier_payout; void payoutId; }
// @ts-expect-error amount is a number of minor units, not a string
void cobro.creditSandboxWallet({ amount: '1000' });
`;

// What Node 18 lacks and Node 20 has, taken away before the client loads: the global Web Crypto, AbortSignal.any
// and String.prototype.toWellFormed. The client must then use its fallbacks.
const node18Shim = `
Object.defineProperty(globalThis, 'crypto', { value: undefined, configurable: true, writable: true });
delete AbortSignal.any;
delete String.prototype.toWellFormed;
`;

let workDir: string;
let tarball: string;
let scratch: string;
let live: LiveApp;

beforeAll(async () => {
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-client-pack-'));
  // Build and pack a copy, so the test neither writes into the worktree nor races another run.
  const copy = path.join(workDir, 'client');
  fs.mkdirSync(copy);
  for (const entry of ['package.json', 'tsconfig.json', 'README.md', 'src']) {
    fs.cpSync(path.join(packageDir, entry), path.join(copy, entry), { recursive: true });
  }
  await run(process.execPath, [tscBin, '-p', path.join(copy, 'tsconfig.json')]);
  const packed = await run(
    'npm',
    ['pack', '--ignore-scripts', '--json', '--pack-destination', workDir],
    { cwd: copy },
  );
  tarball = path.join(
    workDir,
    (JSON.parse(packed.stdout) as Array<{ filename: string }>)[0]?.filename ?? '',
  );
  scratch = path.join(workDir, 'scratch');
  fs.mkdirSync(scratch);
  fs.writeFileSync(
    path.join(scratch, 'package.json'),
    JSON.stringify({ name: 'scratch', private: true, type: 'module' }),
  );
  // --offline: the tarball has no dependencies, so nothing may come from a registry.
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: scratch });
  // The client in another process signs with the system clock (Cobro-Signature), so the server runs on it too.
  live = await startLiveApp({ clockStart: new Date().toISOString() });
}, 120_000);

afterAll(async () => {
  await live?.close();
  if (workDir !== undefined) fs.rmSync(workDir, { recursive: true, force: true });
});

describe('the cobro-client package', () => {
  it('ships compiled JavaScript and declarations only, with no dependencies and no server file', () => {
    const installed = path.join(scratch, 'node_modules/cobro-client');
    const manifest = JSON.parse(
      fs.readFileSync(path.join(installed, 'package.json'), 'utf8'),
    ) as Record<string, unknown>;
    expect(manifest).toMatchObject({
      type: 'module',
      exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } },
    });
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.peerDependencies).toBeUndefined();
    const files = fs.readdirSync(path.join(installed, 'dist'));
    expect(files).toContain('index.js');
    expect(files).toContain('index.d.ts');
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    for (const file of files) {
      const text = fs.readFileSync(path.join(installed, 'dist', file), 'utf8');
      // Only sibling imports: nothing from the server tree (`../`), typebox or any other package.
      const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map(
        (m) => m[1],
      );
      expect({ file, outside: specifiers.filter((s) => !s?.startsWith('./')) }).toEqual({
        file,
        outside: [],
      });
      expect(text).not.toMatch(/typebox|Static</);
    }
  });

  it('type-checks a consumer with nothing but the package installed', async () => {
    fs.writeFileSync(path.join(scratch, 'consumer.ts'), consumerTypes);
    fs.writeFileSync(
      path.join(scratch, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          lib: ['es2022', 'dom'],
          types: [],
          noEmit: true,
        },
        files: ['consumer.ts'],
      }),
    );
    await run(process.execPath, [tscBin, '-p', path.join(scratch, 'tsconfig.json')]);
  }, 60_000);

  it.each([
    { label: 'as it is', args: [] as string[], globals: 'object' },
    {
      label: 'without what Node 18 lacks',
      args: ['--import', './node18-shim.mjs'],
      globals: 'undefined',
    },
  ])(
    "signs real calls to a running server from the machine's own Node, $label",
    async ({ args, globals }) => {
      expect(
        fs.existsSync(systemNode),
        `${systemNode} (set COBRO_SYSTEM_NODE to the machine's Node)`,
      ).toBe(true);
      fs.writeFileSync(path.join(scratch, 'main.mjs'), consumerScript);
      fs.writeFileSync(path.join(scratch, 'node18-shim.mjs'), node18Shim);
      const account = await live.t.createAccount('Package merchant');
      const env = {
        PATH: process.env.PATH ?? '',
        COBRO_BASE_URL: live.baseUrl,
        COBRO_PUBLIC_TOKEN: account.publicToken,
        COBRO_PRIVATE_TOKEN: account.privateToken,
      };
      // Async: the server answering lives in this process, so a sync spawn would deadlock.
      const { stdout } = await run(systemNode, [...args, 'main.mjs'], {
        cwd: scratch,
        env,
        timeout: 30_000,
      });
      const out = JSON.parse(stdout) as Record<string, any>;
      expect(out.node).not.toBe(process.version);
      expect({ crypto: out.globalCrypto, any: out.signalAny }).toEqual(
        globals === 'object'
          ? { crypto: 'object', any: 'function' }
          : { crypto: 'undefined', any: 'undefined' },
      );
      expect(out.account).toEqual({
        httpStatus: 200,
        body: { status: 'success', id: account.id, name: 'Package merchant', mode: 'sandbox' },
      });
      expect(out.credited).toBe(200);
      expect(out.wallet).toMatchObject({
        httpStatus: 200,
        body: { status: 'success', currency: 'CLP', amount_available: 7000 },
      });
      expect(out.forged).toMatchObject({
        httpStatus: 401,
        body: { status: 'failed', message_error: 'invalid sign' },
      });
      expect(out.failed).toBe(true);
    },
    60_000,
  );
});
