// README.md's "Operator CLI" table against the commands themselves (decision 895): each row names commands
// `cobro --help` lists, with options they take, and a choice written `--opt a|b|c` lists the choices the
// command's own usage line gives, no fewer and no other.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allCommands, processCommands } from '../../src/cli/all-commands.ts';
import { repoRoot } from '../support/cli.ts';

const usages = new Map<string, { usage: string; options: ReadonlySet<string> }>([
  ...allCommands().map(
    (c) => [c.name, { usage: c.usage, options: new Set(Object.keys(c.options)) }] as const,
  ),
  ...processCommands.map((p) => [p.name, { usage: '', options: new Set<string>() }] as const),
]);

/** The table's first column, one command span each: `accounts show ID`, `keys revoke KEY_ID`. */
function spans(): string[] {
  const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  const section = readme.slice(
    readme.indexOf('## Operator CLI'),
    readme.indexOf('## What a merchant'),
  );
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => {
      const first = line.split(/(?<!\\)\|/)[1] ?? '';
      // A span that is an option alone (`--clear-…-url`) speaks of the row's command.
      return [...first.matchAll(/`([^`]+)`/g)]
        .map((m) => (m[1] ?? '').replace(/\\\|/g, '|'))
        .filter((span) => !span.startsWith('--'));
    });
}

function commandOf(span: string): string | undefined {
  const [one = '', two = ''] = span.split(' ');
  return [`${one} ${two}`, one].find((name) => usages.has(name));
}

/** `--status a|b|c` → { status: [a, b, c] } for every option given choices. */
function choices(text: string): Map<string, string[]> {
  return new Map(
    [...text.matchAll(/--([a-z][a-z-]*) ([a-z_]+(?:\|[a-z_]+)+)/g)].map((m) => [
      m[1] as string,
      (m[2] as string).split('|').sort(),
    ]),
  );
}

describe("README's Operator CLI table", () => {
  it('names only commands and options the CLI has', () => {
    for (const span of spans()) {
      const name = commandOf(span);
      expect(name, span).toBeDefined();
      for (const m of span.matchAll(/--([a-z][a-z-]*[a-z])\b/g))
        expect(usages.get(name ?? '')?.options.has(m[1] as string), `${span}: --${m[1]}`).toBe(
          true,
        );
    }
  });

  it("lists an option's choices as the command's usage does", () => {
    for (const span of spans()) {
      const own = usages.get(commandOf(span) ?? '');
      for (const [option, listed] of choices(span))
        expect(listed, `${span}: --${option}`).toEqual(choices(own?.usage ?? '').get(option));
    }
  });
});

describe('the CLI as the docs list it (decision 1095)', () => {
  it("README's table names every command", () => {
    const named = new Set(spans().map(commandOf));
    expect([...usages.keys()].filter((name) => !named.has(name))).toEqual([]);
  });

  it("operations.md's list of read-only commands is the commands that declare readOnly", () => {
    const ops = fs.readFileSync(path.join(repoRoot, 'docs/operations.md'), 'utf8');
    const start = ops.indexOf('**Commands that only read never change the database.**');
    const list = ops.slice(start, ops.indexOf(' open the database without migrating it', start));
    const listed = [...list.matchAll(/`([a-z -]+)`/g)].map((m) => m[1] as string).sort();
    const readOnly = allCommands()
      .filter((c) => c.readOnly === true)
      .map((c) => c.name)
      .sort();
    expect(listed).toEqual(readOnly);
  });
});

describe('every `cobro` command the guides write (decision 1095)', () => {
  /** Where a guide writes an option on purpose that the command refuses, and says so. */
  const refusedOnPurpose = new Set(['serve --port']);
  const guides = [
    'README.md',
    ...fs
      .readdirSync(path.join(repoRoot, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];

  it('names a command the CLI has, with options it takes', () => {
    const wrong: string[] = [];
    let seen = 0;
    for (const guide of guides) {
      const text = fs.readFileSync(path.join(repoRoot, guide), 'utf8');
      const calls = text.matchAll(
        /(?:bin\/cobro|npm run (?:-s )?cobro --|(?<![\w/-])cobro) ([a-z][a-z-]*(?: [a-z][a-z-]*)?)([^`\n|]*)/g,
      );
      for (const call of calls) {
        const name = commandOf(call[1] as string);
        if (name === undefined) continue; // prose: "cobro serve keeps…", "cobro is…"
        seen += 1;
        for (const o of (call[2] as string).matchAll(/--([a-z][a-z-]*[a-z])\b(?!-)/g)) {
          const option = o[1] as string;
          if (option === 'help' || refusedOnPurpose.has(`${name} --${option}`)) continue;
          if (usages.get(name)?.options.has(option) !== true)
            wrong.push(`${guide}: cobro ${name} --${option}`);
        }
      }
    }
    expect(seen).toBeGreaterThan(100);
    expect(wrong).toEqual([]);
  });
});
