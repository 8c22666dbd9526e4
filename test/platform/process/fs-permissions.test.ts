// The permission pass over DATA_DIR (decision 072): it tightens Cobro's entries, never follows a symbolic link out
// of DATA_DIR, leaves a shared directory's own mode alone, and names loose paths in a bounded number of warnings.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { dataDirLimits } from '../../../src/limits/index.ts';
import {
  secureDataDir,
  tightenTree,
  warnLoosePaths,
  type LoosePath,
} from '../../../src/platform/process/fs-permissions.ts';

const made: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-fsperm-'));
  made.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const modeOf = (p: string) => fs.statSync(p).mode & 0o777;

describe('tightening DATA_DIR', () => {
  it("strips group and other bits from a tree, keeping the owner's", () => {
    const root = tempDir();
    fs.mkdirSync(path.join(root, 'a/b'), { recursive: true });
    fs.writeFileSync(path.join(root, 'a/b/f'), 'x');
    fs.chmodSync(path.join(root, 'a/b/f'), 0o764);
    fs.chmodSync(path.join(root, 'a'), 0o775);
    const found = tightenTree(path.join(root, 'a'));
    expect(found.map((f) => [path.relative(root, f.path), f.modeBefore, f.modeAfter])).toEqual(
      expect.arrayContaining([
        ['a', '0775', '0700'],
        ['a/b/f', '0764', '0700'],
      ]),
    );
    expect(modeOf(path.join(root, 'a/b/f'))).toBe(0o700);
    expect(tightenTree(path.join(root, 'a'))).toEqual([]);
  });

  it('never follows a symbolic link out of DATA_DIR', () => {
    const outside = tempDir();
    const target = path.join(outside, 'shared.txt');
    fs.writeFileSync(target, 'x');
    fs.chmodSync(target, 0o644);
    const dataDir = tempDir();
    fs.mkdirSync(path.join(dataDir, 'pgdata'));
    fs.symlinkSync(target, path.join(dataDir, 'pgdata', 'link'));
    fs.symlinkSync(outside, path.join(dataDir, 'pgdata', 'dirlink'));
    secureDataDir(dataDir);
    expect(modeOf(target)).toBe(0o644);
    expect(modeOf(outside)).toBe(0o700);
  });

  it("leaves a sticky shared directory's own mode alone but still names it", () => {
    const shared = tempDir();
    fs.chmodSync(shared, 0o1777);
    fs.writeFileSync(path.join(shared, 'secret.key'), 'k');
    fs.chmodSync(path.join(shared, 'secret.key'), 0o640);
    const found = secureDataDir(shared);
    expect(fs.statSync(shared).mode & 0o7777).toBe(0o1777);
    expect(modeOf(path.join(shared, 'secret.key'))).toBe(0o600);
    expect(found.find((f) => f.path === shared)).toMatchObject({
      modeBefore: '1777',
      modeAfter: null,
    });
  });

  it('does nothing for a DATA_DIR that does not exist yet', () => {
    expect(secureDataDir(path.join(tempDir(), 'not-yet'))).toEqual([]);
  });

  it('warns once per loose path up to the bound, then counts the rest', () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'warn' },
      new Writable({
        write(chunk, _enc, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    const found: LoosePath[] = Array.from(
      { length: dataDirLimits.loosePathWarningsMax + 7 },
      (_, i) => ({ path: `/d/f${i}`, modeBefore: '0644', modeAfter: '0600' }),
    );
    warnLoosePaths(logger, found);
    expect(lines).toHaveLength(dataDirLimits.loosePathWarningsMax + 1);
    expect(lines[0]).toContain(
      'DATA_DIR path /d/f0 was open to group or others (0644); tightened to 0600',
    );
    expect(lines.at(-1)).toContain('7 more DATA_DIR paths');
  });
});
