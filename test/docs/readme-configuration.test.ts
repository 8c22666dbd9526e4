// README.md's "Configuration" table against src/platform/process/config*.ts (decision 895): every variable the
// configuration reads has its row, every row names one it reads, a default written as a value is the default, and
// a range written as "`A` to `B`" (or "At least `A`") is the range the start enforces.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/process/config.ts';
import { repoRoot } from '../support/cli.ts';

interface Row {
  readonly name: string;
  readonly fallback: string;
  readonly meaning: string;
}

function rows(): Row[] {
  const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('## A first'));
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [name = '', fallback = '', ...meaning] = line.slice(1, -1).split(' | ');
      return {
        name: name.trim().replace(/`/g, ''),
        fallback: fallback.trim(),
        meaning: meaning.join(' | '),
      };
    });
}

/** The variables the configuration reads, by the names its sources write. */
function variablesRead(): Set<string> {
  const dir = path.join(repoRoot, 'src', 'platform', 'process');
  const text = ['config.ts', 'config-limits.ts', 'config-values.ts']
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
    .join('\n');
  const names = [
    ...text.matchAll(/env\.([A-Z][A-Z0-9_]+)/g),
    ...text.matchAll(/\(\s*env,\s*'([A-Z][A-Z0-9_]+)'/g),
  ].map((m) => m[1] as string);
  return new Set(names);
}

const base = loadConfig({});
const errorsOf = (env: Record<string, string>) => {
  const loaded = loadConfig(env);
  return loaded.ok ? [] : loaded.errors;
};

describe("README's Configuration table", () => {
  it('has a row for every variable the configuration reads, and none it does not', () => {
    expect(
      rows()
        .map((r) => r.name)
        .sort(),
    ).toEqual([...variablesRead()].sort());
  });

  it('gives each variable its real default: setting a default written as a value changes nothing', () => {
    expect(base.ok).toBe(true);
    for (const row of rows()) {
      const written = /^`([^`]+)`/.exec(row.fallback)?.[1];
      if (written === undefined || !base.ok) continue;
      // `http://HOST:PORT` names the other variables' values.
      const value = written
        .replace('HOST', base.config.host)
        .replace('PORT', String(base.config.port));
      expect(loadConfig({ [row.name]: value }), `${row.name}=${value}`).toEqual(base);
    }
  });

  it('gives the ranges the start enforces', () => {
    for (const row of rows()) {
      const range = /`(\d+)` to `(\d+)`\s*$/.exec(row.meaning);
      const least = /At least `(\d+)`/.exec(row.meaning);
      const min = range?.[1] ?? least?.[1];
      if (min === undefined) continue;
      const refused = (value: number) =>
        errorsOf({ [row.name]: String(value) }).some((e) => e.startsWith(row.name));
      expect(refused(Number(min)), `${row.name}=${min}`).toBe(false);
      expect(refused(Number(min) - 1), `${row.name}=${Number(min) - 1}`).toBe(true);
      if (range?.[2] === undefined) continue;
      expect(refused(Number(range[2])), `${row.name}=${range[2]}`).toBe(false);
      expect(refused(Number(range[2]) + 1), `${row.name}=${Number(range[2]) + 1}`).toBe(true);
    }
  });
});
