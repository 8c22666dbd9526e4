import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorCatalogue } from '../../../src/platform/errors/errors.ts';
import { resultCodes } from '../../../src/platform/errors/result-codes.ts';
import { repoRoot } from '../../support/cli.ts';

const doc = () => fs.readFileSync(path.join(repoRoot, 'docs', 'errors.md'), 'utf8');

function testFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

describe('error catalogue', () => {
  it('documents every code with its HTTP status and type in docs/errors.md', () => {
    const text = doc();
    for (const [code, { http, type }] of Object.entries(errorCatalogue)) {
      const row = text.split('\n').find((line) => line.startsWith(`| \`${code}\` |`));
      expect(row, `docs/errors.md lacks ${code}`).toBeDefined();
      expect(row).toContain(`| ${http} |`);
      expect(row).toContain(`| ${type} |`);
    }
  });

  it('documents every business result code in docs/errors.md, and nothing that is not one', () => {
    const text = doc();
    const section = text.slice(text.indexOf('## Business refusals'));
    const documented = [...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual(Object.keys(resultCodes).sort());
  });

  it('has a test that triggers every business result code (ratchet: a new code needs its negative test)', () => {
    const self = path.join(repoRoot, 'test', 'platform', 'errors', 'errors-catalogue.test.ts');
    const sources = testFiles(path.join(repoRoot, 'test'))
      .filter((file) => file !== self)
      .map((file) => fs.readFileSync(file, 'utf8'));
    for (const code of Object.keys(resultCodes)) {
      expect(
        sources.some((text) => text.includes(`'${code}'`) || text.includes(`"${code}"`)),
        `no test names ${code}`,
      ).toBe(true);
    }
  });
});
