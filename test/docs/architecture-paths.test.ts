// docs/architecture.md and README's "Layout" against the tree (decision 1095): a newcomer reading them finds every
// file they name, every functional group, platform folder and limits file named, and the account port's methods as
// the code declares them. They had drifted: seven groups, the platform's `audit`, four limits files and two workers
// unnamed, and a port method renamed (`webhookSecretOf`, now `webhookSecretsOf`).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/cli.ts';

const read = (file: string) => fs.readFileSync(path.join(repoRoot, file), 'utf8');
const architecture = read('docs/architecture.md');
const dirsOf = (dir: string) =>
  fs
    .readdirSync(path.join(repoRoot, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);

/** `src/a/b.ts`, `platform/x/y.ts`, `modules/g/f.ts`, `transactions/f.ts`: the paths written whole enough to look up. */
function namedPaths(text: string): string[] {
  const found = [
    ...text.matchAll(/`((?:src\/|platform\/|modules\/)?[a-z-]+\/[a-z0-9./-]+\.ts)`/g),
  ].map((m) => m[1] as string);
  return [...new Set(found)];
}

function exists(named: string): boolean {
  const candidates = /^(src|test)\//.test(named)
    ? [named]
    : [path.join('src', named), path.join('src/modules', named), path.join('src/platform', named)];
  return candidates.some((c) => fs.existsSync(path.join(repoRoot, c)));
}

describe('docs/architecture.md against the tree', () => {
  it('names only files that exist', () => {
    const named = namedPaths(architecture);
    expect(named.length).toBeGreaterThan(30);
    expect(named.filter((p) => !exists(p))).toEqual([]);
  });

  it('names every functional group, every worker and every limits file', () => {
    const house = architecture.slice(0, architecture.indexOf('## Ports'));
    expect(dirsOf('src/modules').filter((g) => !new RegExp(`\\b${g}\\b`).test(house))).toEqual([]);
    const workers = fs
      .readdirSync(path.join(repoRoot, 'src/workers'))
      .filter((f) => f.endsWith('-worker.ts'))
      .map((f) => f.replace(/-worker\.ts$/, ''));
    expect(workers.filter((w) => !house.includes(w))).toEqual([]);
    const limits = fs
      .readdirSync(path.join(repoRoot, 'src/limits'))
      .filter((f) => f !== 'index.ts');
    expect(limits.filter((f) => !house.includes(`\`${f}\``))).toEqual([]);
  });

  it("names the account port's methods as the port declares them", () => {
    const port = read('src/platform/auth/account-directory.ts');
    const declared = new Set(
      [...port.slice(port.indexOf('interface AccountDirectory')).matchAll(/^ {2}(\w+)\(/gm)].map(
        (m) => m[1] as string,
      ),
    );
    const row = architecture.split('\n').find((l) => l.startsWith('| `AccountDirectory`')) ?? '';
    const named = [...row.split('|')[1]!.matchAll(/`(\w+)`/g)].map((m) => m[1] as string).slice(1);
    expect(named.sort()).toEqual([...declared].sort());
    for (const m of architecture.matchAll(/ctx\.accounts\.(\w+)/g))
      expect(declared.has(m[1] as string), m[0]).toBe(true);
  });
});

describe("README's Layout against the tree", () => {
  it('names every folder of src/platform', () => {
    const readme = read('README.md');
    const line = readme.slice(readme.indexOf('`src/platform/`: what knows no module'));
    const named = line.slice(0, line.indexOf('\n  - '));
    expect(dirsOf('src/platform').filter((d) => !named.includes(`\`${d}\``))).toEqual([]);
  });
});
