// The CLI's parsing and help (commander over the Command objects of src/cli/registry.ts), in this process through
// resolve(); test/cli/startup.test.ts runs the real bin/cobro.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allCommands, processCommands } from '../../src/cli/all-commands.ts';
import { resolve } from '../../src/cli/dispatch.ts';
import { helpText, type Resolved } from '../../src/cli/program.ts';
import { ok, type Command, type CommandOutput } from '../../src/cli/command.ts';

const isOutput = (r: Resolved | CommandOutput): r is CommandOutput => !('command' in r);
const squash = (text: string) => text.replace(/\s+/g, ' ');

describe('cobro help', () => {
  it('gives every command its own --help with usage, options and examples', () => {
    for (const command of allCommands()) {
      const out = resolve([...command.name.split(' '), '--help']);
      expect(isOutput(out) && out.exitCode, command.name).toBe(0);
      const text = (out as CommandOutput).stdout;
      expect(text, command.name).toContain(`Usage: cobro ${command.name}`);
      expect(squash(text), command.name).toContain(squash(command.summary));
      expect(text, command.name).toContain('Examples:\n  $ ');
      for (const option of Object.keys(command.options)) {
        expect(text, `${command.name} --${option}`).toContain(`--${option}`);
        // The usage line, which README's table copies, names it too (decision 1095).
        expect(command.usage, `${command.name} usage: --${option}`).toContain(`--${option}`);
      }
    }
    for (const p of processCommands)
      expect((resolve([p.name, '--help']) as CommandOutput).stdout).toContain(`$ ${p.examples[0]}`);
    // `help X Y` is `X Y --help`.
    expect(resolve(['help', 'accounts', 'show'])).toEqual(resolve(['accounts', 'show', '--help']));
    expect((resolve(['sign', '--help']) as CommandOutput).stdout).toContain('--query <QUERY>');
  });

  it('lists every command with its whole summary, wrapped to the terminal width and never cut', () => {
    const everyone = [...processCommands, ...allCommands()];
    const narrow = helpText({ columns: 80 });
    for (const line of narrow.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
    for (const c of everyone) expect(squash(narrow), c.name).toContain(squash(c.summary));
    const wide = helpText({ columns: 250 }).split('\n');
    for (const c of everyone)
      expect(
        wide.some((l) => l.trimStart().startsWith(c.name) && l.endsWith(c.summary)),
        c.name,
      ).toBe(true);
    expect(resolve([])).toEqual(ok(helpText()));
  });

  it('refuses unknown commands, unknown options and missing operands with exit 2 and a pointer to help', () => {
    const unknown = resolve(['acounts', 'list']) as CommandOutput;
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'acounts'");
    expect(unknown.stderr).toContain('(Did you mean accounts?)');
    const option = resolve(['accounts', 'list', '--bogus']) as CommandOutput;
    expect(option).toMatchObject({ exitCode: 2, stdout: '' });
    expect(option.stderr).toContain("unknown option '--bogus'");
    expect(option.stderr).toContain('cobro accounts list --help');
    const operand = resolve(['accounts', 'show']) as CommandOutput;
    expect(operand.exitCode).toBe(2);
    expect(operand.stderr).toContain("missing required argument 'ID'");
    // An operand no command declares is refused, not ignored (`ledger verify acc1` verified every account).
    const excess = resolve(['ledger', 'verify', 'acc123']) as CommandOutput;
    expect(excess.exitCode).toBe(2);
    expect(excess.stderr).toContain("too many arguments for 'verify'");
    expect((resolve(['accounts', 'show', 'acc1', 'acc2']) as CommandOutput).exitCode).toBe(2);
    const value = resolve(['sign', '--token']) as CommandOutput;
    expect(value.exitCode).toBe(2);
    expect(value.stderr).toContain("option '--token <PRIVATE>' argument missing");
    expect((resolve(['accounts', 'lst']) as CommandOutput).stderr).toContain(
      '(Did you mean accounts list?)',
    );
    expect((resolve(['zzzz']) as CommandOutput).stderr).not.toContain('Did you mean');
    // `help X` of an unknown X is X's usage error, not the whole help with exit 0 (decision 810).
    expect(resolve(['help', 'nope'])).toEqual(resolve(['nope']));
    const helpTypo = resolve(['help', 'acounts']) as CommandOutput;
    expect(helpTypo).toMatchObject({ exitCode: 2, stdout: '' });
    expect(helpTypo.stderr).toContain("unknown command 'acounts'");
    expect(helpTypo.stderr).toContain('(Did you mean accounts?)');
    expect((resolve(['help', 'accounts', 'nope']) as CommandOutput).exitCode).toBe(2);
    expect((resolve(['help', 'serve']) as CommandOutput).exitCode).toBe(0);
    const bareGroup = resolve(['notifications']) as CommandOutput;
    expect(bareGroup.exitCode).toBe(2);
    expect(bareGroup.stderr).toContain('notifications retry <ID>');
  });

  it('hands a command its options under their declared names, positionals in order', () => {
    const picked: Command = {
      name: 'things do-it',
      summary: 'A command as another module would declare it',
      usage: 'cobro things do-it [--dry-run] [--per-page N] [-q] A B',
      options: {
        'dry-run': { type: 'boolean' },
        'per-page': { type: 'string' },
        quiet: { type: 'boolean', short: 'q' },
      },
      operands: [
        { name: 'A', description: 'first' },
        { name: 'B', description: 'second' },
      ],
      needsDb: false,
      run: async () => ok(''),
    };
    const single: Command = {
      ...picked,
      name: 'things',
      usage: 'cobro things',
      options: {},
      operands: undefined,
    };
    const commands = [picked, single];
    const r = resolve(['things', 'do-it', 'a', '--dry-run', '--per-page=-5', '-q', 'b'], {
      commands,
    }) as Resolved;
    expect(r.command).toBe(picked);
    expect(r.args).toEqual({
      values: { 'dry-run': true, 'per-page': '-5', quiet: true },
      positionals: ['a', 'b'],
    });
    expect((resolve(['things', 'do-it', 'a'], { commands }) as CommandOutput).exitCode).toBe(2);
    // A one-word command that is also a group runs itself when no subcommand is named, and takes no operand it
    // does not declare.
    expect((resolve(['things'], { commands }) as Resolved).command).toBe(single);
    expect((resolve(['things', 'x'], { commands }) as CommandOutput).exitCode).toBe(2);
    expect(
      (resolve(['things', 'do-it', '--help'], { commands }) as CommandOutput).stdout,
    ).toContain('$ cobro things do-it [--dry-run]');
  });
});

describe('cobro completion', () => {
  it('refuses a shell it does not know', async () => {
    const r = resolve(['completion', 'fish']) as Resolved;
    expect(await r.command.run(null, r.args)).toMatchObject({
      exitCode: 2,
      stderr: 'SHELL must be one of bash, zsh\n',
    });
  });

  it('completes commands, subcommands and options in bash', async () => {
    const r = resolve(['completion', 'bash']) as Resolved;
    const text = (await r.command.run(null, r.args)).stdout;
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-compl-')), 'cobro.bash');
    fs.writeFileSync(file, text);
    // Every line is completed by one bash (a bash each cost 150 processes, 100 s at load 10), each line in a
    // subshell of its own, so no line sees what completing another left behind.
    const lines = [
      ...new Set([
        'cobro acc',
        'cobro accounts s',
        'cobro accounts rotate acc1 --o',
        'cobro sign --',
        'cobro completion ',
        ...allCommands().flatMap((c) => {
          const [first, second] = c.name.split(' ');
          return second === undefined
            ? [`cobro ${first}`]
            : [`cobro ${first}`, `cobro ${first} ${second}`];
        }),
      ]),
    ];
    const replies = execFileSync(
      'bash',
      [
        '-c',
        [
          `source ${file}`,
          'for line in "$@"; do (',
          '  read -ra COMP_WORDS <<< "$line"; [[ "$line" == *" " ]] && COMP_WORDS+=("")',
          '  COMP_CWORD=$((${#COMP_WORDS[@]}-1)); _cobro_complete; echo "${COMPREPLY[*]}"',
          '); done',
        ].join('\n'),
        'bash',
        ...lines,
      ],
      { encoding: 'utf8' },
    ).split('\n');
    expect(replies).toHaveLength(lines.length + 1);
    const completed = new Map(lines.map((line, i) => [line, replies[i]!.trim()]));
    const complete = (line: string): string => completed.get(line)!;
    expect(complete('cobro acc')).toBe('accounts');
    expect(complete('cobro accounts s')).toBe(
      'show set-fee set-bank set-processor set-notify-url set-urls set-escrow',
    );
    expect(complete('cobro accounts rotate acc1 --o')).toBe('--only');
    expect(complete('cobro sign --')).toBe('--token --path --body --query --help');
    expect(complete('cobro completion ')).toBe('bash zsh --help');
    for (const c of allCommands()) {
      const [first, second] = c.name.split(' ');
      expect(complete(`cobro ${first}`).split(' '), c.name).toContain(first);
      if (second !== undefined)
        expect(complete(`cobro ${first} ${second}`).split(' '), c.name).toContain(second);
    }
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });

  it('writes a zsh script naming every command with its summary', async () => {
    const r = resolve(['completion', 'zsh']) as Resolved;
    const text = (await r.command.run(null, r.args)).stdout;
    expect(text.startsWith('#compdef cobro\n')).toBe(true);
    expect(text).toContain("'accounts:accounts: create, list, show");
    expect(text).toContain(`'create:Create a merchant account and print its credentials'`);
    expect(text).toContain(
      `'set-bank:Set the bank account that receives the account'\\''s withdrawals'`,
    );
    let zsh = true;
    try {
      execFileSync('zsh', ['--version']);
    } catch {
      zsh = false;
    }
    if (zsh) execFileSync('zsh', ['-n', '-c', text]);
  });
});
