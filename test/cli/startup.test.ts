// The real launcher (bin/cobro, the pinned Node, no package manager) and what a start loads: help, completions and
// `cobro sign` must not import the database, the server or the services (issue 16: `time cobro --help` under a
// second, `cobro sign` in shell loops), so a command file imports its services inside run().
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { computeSign } from '../../src/platform/auth/sign.ts';
import { cobroBin, repoRoot, runCli } from '../support/cli.ts';

vi.setConfig({ testTimeout: 120_000 });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-start-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Packages a light start must not load. */
const heavy =
  /\/node_modules\/(kysely|typebox|@electric-sql\/pglite|fastify|@fastify\/[^/]+|pg|pino)\//;

/** Runs bin/cobro with the import recorder; returns its result and, per heavy package loaded, the chain that did. */
async function startOf(args: readonly string[], n: number) {
  const out = path.join(dir, `imports-${n}.json`);
  const recorder = path.join(repoRoot, 'test', 'support', 'record-imports.ts');
  const result = await runCli(args, {
    NODE_OPTIONS: `--import=${recorder}`,
    RECORD_IMPORTS_OUT: out,
  });
  const edges = JSON.parse(fs.readFileSync(out, 'utf8')) as { parent: string; url: string }[];
  const parentOf = new Map<string, string>();
  for (const e of edges) if (!parentOf.has(e.url)) parentOf.set(e.url, e.parent);
  const offenders = new Map<string, string>();
  for (const e of edges) {
    const pkg = heavy.exec(e.url)?.[1];
    if (pkg === undefined || offenders.has(pkg)) continue;
    const chain: string[] = [];
    for (
      let u: string | undefined = e.url;
      u !== undefined && u !== '' && chain.length < 40;
      u = parentOf.get(u)
    ) {
      if (!u.includes('/node_modules/'))
        chain.unshift(path.relative(repoRoot, new URL(u).pathname));
    }
    offenders.set(pkg, chain.join(' -> '));
  }
  return { result, offenders: [...offenders].map(([pkg, chain]) => `${pkg} via ${chain}`) };
}

describe('bin/cobro', () => {
  it('is a shell launcher that runs the pinned Node directly, with no package manager in the path', () => {
    const text = fs.readFileSync(cobroBin, 'utf8');
    expect(text.startsWith('#!/bin/sh\n')).toBe(true);
    expect(text).toContain('node_modules/node/bin/node');
    expect(text).not.toMatch(/\b(npm|npx|pnpm|yarn)\b/);
    expect(fs.statSync(cobroBin).mode & 0o111).not.toBe(0);
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    expect(pkg.bin.cobro).toBe('./bin/cobro');
  });

  it('prints help, per-command help, completions and Sign headers without loading the database, server or services', async () => {
    const runs: [readonly string[], (r: Awaited<ReturnType<typeof runCli>>) => void][] = [
      [
        ['--help'],
        (r) => {
          expect(r.stdout).toContain('accounts create');
          expect(r.stdout).toContain('completion <SHELL>');
        },
      ],
      [['sign', '--help'], (r) => expect(r.stdout).toContain('Examples:\n  $ cobro sign --token')],
      [
        ['notifications', 'list', '--help'],
        (r) => expect(r.stdout).toContain('--status <pending|delivering|delivered|failed>'),
      ],
      [
        ['completion', 'bash'],
        (r) =>
          expect(r.stdout).toContain('complete -o default -o bashdefault -F _cobro_complete cobro'),
      ],
      [
        [
          'sign',
          '--token',
          'fe551abcef62fcf002dc598922e68f0a',
          '--path',
          '/api/wallet/list',
          '--query',
          'page=1&per_page=10',
        ],
        (r) =>
          expect(r.stdout).toBe(
            `${computeSign('fe551abcef62fcf002dc598922e68f0a', '/api/wallet/list', { page: '1', per_page: '10' })}\n`,
          ),
      ],
    ];
    let n = 0;
    for (const [args, check] of runs) {
      const { result, offenders } = await startOf(args, n++);
      expect(result.code, `cobro ${args.join(' ')}: ${result.stderr}`).toBe(0);
      check(result);
      expect(
        offenders,
        `cobro ${args.join(' ')} loaded heavy packages; import them inside the command's run() with await import(...)`,
      ).toEqual([]);
    }
  });

  it('exits 2 with the usage error on stderr', async () => {
    const r = await runCli(['accounts', 'show'], {});
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toContain("error: missing required argument 'ID'");
  });
});
