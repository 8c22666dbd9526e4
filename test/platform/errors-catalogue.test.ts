import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorCatalogue } from '../../src/platform/errors.ts';
import { repoRoot } from '../support/cli.ts';

describe('error catalogue', () => {
  it('documents every code with its HTTP status and type in docs/errors.md', () => {
    const doc = fs.readFileSync(path.join(repoRoot, 'docs', 'errors.md'), 'utf8');
    for (const [code, { http, type }] of Object.entries(errorCatalogue)) {
      const row = doc.split('\n').find((line) => line.startsWith(`| \`${code}\` |`));
      expect(row, `docs/errors.md lacks ${code}`).toBeDefined();
      expect(row).toContain(`| ${http} |`);
      expect(row).toContain(`| ${type} |`);
    }
  });
});
