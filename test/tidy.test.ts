// House rules kept by a test (STYLE rule 16): no floats on money, time read only by the clock, no console.log,
// no unfinished markers, and files kept small.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './support/cli.ts';

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(full));
    else if (entry.name.endsWith('.ts')) out.push(full);
  }
  return out;
}

const src = sourceFiles(path.join(repoRoot, 'src'));
const rel = (f: string) => path.relative(repoRoot, f);
const lineCountMax = 400;

describe('tidy', () => {
  it('reads the system time only in clock.ts', () => {
    const offenders = src.filter((f) => !f.endsWith('platform/clock.ts') && /new Date\(\)|Date\.now\(\)/.test(fs.readFileSync(f, 'utf8')));
    expect(offenders.map(rel)).toEqual([]);
  });

  it('never turns money into a float', () => {
    const pattern = /\b(parseFloat|Number|parseInt)\(\s*(?!limits\.)[\w.]*(amount|Minor|balance|fee)\w*/i;
    // json-number.ts is the one asserted conversion for fields the seed types as numbers.
    const offenders = src.filter((f) => !f.endsWith('platform/money/json-number.ts') && pattern.test(fs.readFileSync(f, 'utf8')));
    expect(offenders.map(rel)).toEqual([]);
  });

  it('has no console.log and no unfinished markers in src/', () => {
    const offenders = src.filter((f) => /console\.log|\bTODO\b|\bFIXME\b|\bXXX\b|not implemented/i.test(fs.readFileSync(f, 'utf8')));
    expect(offenders.map(rel)).toEqual([]);
  });

  it(`keeps source files under ${lineCountMax} lines`, () => {
    const offenders = src.filter((f) => fs.readFileSync(f, 'utf8').split('\n').length > lineCountMax);
    expect(offenders.map(rel)).toEqual([]);
  });
});
