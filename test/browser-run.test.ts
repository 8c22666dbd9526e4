// The browser run (`npm run test:browser`) fails when it finds no test: a moved folder or a renamed glob would
// otherwise pass in CI having run nothing (issue 29).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import config from '../vitest.config.ts';

const root = path.resolve(import.meta.dirname, '..');

describe('the browser run', () => {
  it('is not told to pass without tests', () => {
    const scripts = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))
      .scripts as Record<string, string>;
    expect(scripts['test:browser']).toMatch(/--project browser/);
    expect(scripts['test:browser']).not.toMatch(/passWithNoTests/);
  });

  it('finds its tests where the browser project looks', () => {
    const projects = (config.test?.projects ?? []) as Array<{
      test: { name: string; include: string[]; passWithNoTests?: boolean };
    }>;
    const browser = projects.find((p) => p.test.name === 'browser');
    expect(browser?.test.passWithNoTests).not.toBe(true);
    const found = browser!.test.include.flatMap((glob) => fs.globSync(glob, { cwd: root }));
    expect(found.length).toBeGreaterThan(0);
  });
});
