// Parses argv with commander against the declarative Command objects of ./registry.ts and runs the one named.
// Everything here is pure: output is captured into a CommandOutput (never written, never process.exit), so the
// same resolution serves the CLI process, the operator socket inside `cobro serve`, and tests.
import { Command as Program, CommanderError, Option } from 'commander';
import type { AppContext } from '../platform/context.ts';
import { fail, ok, type Command, type CommandArgs, type CommandOutput } from './command.ts';
import { completionScript, completionShells, type CompletionShell } from './completion.ts';
import { commands } from './registry.ts';
import { runOperatorCommand } from './operator-audit.ts';

export interface Resolved {
  readonly command: Command;
  readonly args: CommandArgs;
}

export interface ResolveOptions {
  /** Help text width; by default the terminal's (COLUMNS when not a terminal), else 80. */
  readonly columns?: number;
  /** The commands to resolve against (tests); by default allCommands(). */
  readonly commands?: readonly Command[];
}

/** Commands main.ts runs as long-lived processes; listed here so help and completions know them. */
export interface ProcessCommand {
  readonly name: 'serve' | 'worker';
  readonly summary: string;
  readonly examples: readonly string[];
}

export const processCommands: readonly ProcessCommand[] = [
  {
    name: 'serve',
    summary: 'Run the API, the checkout pages, the docs and the background workers',
    examples: ['cobro serve', 'PORT=8080 DATABASE_URL=postgres://cobro@db/cobro cobro serve'],
  },
  {
    name: 'worker',
    summary: 'Run only the background workers (needs DATABASE_URL)',
    examples: ['DATABASE_URL=postgres://cobro@db/cobro cobro worker'],
  },
];

/** `cobro completion bash|zsh`: a completion script built from the command tree below. */
export const completionCommand: Command = {
  name: 'completion',
  summary: 'Print a shell completion script (bash or zsh)',
  usage: 'cobro completion bash|zsh',
  options: {},
  operands: [{ name: 'SHELL', description: `the shell: ${completionShells.join(' or ')}` }],
  examples: [
    'source <(cobro completion bash)      # in ~/.bashrc',
    'cobro completion zsh > "${fpath[1]}/_cobro"   # then restart zsh',
  ],
  needsDb: false,
  async run(_ctx, args) {
    const shell = args.positionals[0];
    if (!(completionShells as readonly string[]).includes(shell ?? ''))
      return fail(`SHELL must be one of ${completionShells.join(', ')}`, 2);
    const tree = [
      ...processCommands.map((p) => ({ name: p.name, summary: p.summary, options: [] })),
      ...allCommands().map((c) => ({
        name: c.name,
        summary: c.summary,
        options: Object.keys(c.options).map((o) => `--${o}`),
        ...(c.name === 'completion' ? { values: completionShells } : {}),
      })),
    ];
    return ok(completionScript(shell as CompletionShell, tree));
  },
};

/** Every Command the CLI knows: the registry's plus `completion`, which is built from them. */
export function allCommands(): readonly Command[] {
  return [...commands, completionCommand];
}

/** The value placeholder of a string option: `--limit <N>`. */
function flagsOf(name: string, def: { type: string; short?: string; valueName?: string }): string {
  const short = def.short !== undefined ? `-${def.short}, ` : '';
  return def.type === 'boolean'
    ? `${short}--${name}`
    : `${short}--${name} <${def.valueName ?? name.toUpperCase()}>`;
}

function examplesText(examples: readonly string[]): string {
  return examples.length === 0
    ? ''
    : `\nExamples:\n${examples.map((e) => `  $ ${e}`).join('\n')}\n`;
}

interface Capture {
  out: string;
  err: string;
  picked: Resolved | null;
}

function helpWidth(options: ResolveOptions): number {
  if (options.columns !== undefined) return options.columns;
  if (process.stdout.isTTY && process.stdout.columns > 0) return process.stdout.columns;
  const env = Number(process.env.COLUMNS);
  return Number.isInteger(env) && env > 0 ? env : 80;
}

/** The words after `cobro` that name a (sub)command: `accounts create`. */
function pathOf(cmd: Program): string {
  const words: string[] = [];
  for (let c: Program | null = cmd; c !== null && c.parent !== null; c = c.parent)
    words.unshift(c.name());
  return words.join(' ');
}

/** The root program: output captured, help at full width, the top level listing every runnable command. */
function rootProgram(capture: Capture, width: number): Program {
  const program = new Program('cobro');
  program
    .usage('<command> [options]')
    .description(
      'Cobro: payments, marketplace splits, events, subscriptions, wallet and payouts behind a Payku-compatible REST API.\nConfiguration comes from the environment: see README.md and docs/operations.md.',
    )
    .exitOverride()
    .configureOutput({
      writeOut: (s) => {
        capture.out += s;
      },
      writeErr: (s) => {
        capture.err += s;
      },
      getOutHelpWidth: () => width,
      getErrHelpWidth: () => width,
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    })
    // Suggestions are resolve()'s own: commander would compare with the flattened list below (`create`, `list`).
    .showSuggestionAfterError(false)
    // `cobro help accounts show` is rewritten to `cobro accounts show --help` by resolve().
    .helpCommand(false);
  program.configureHelp({
    // The top level lists every runnable command with its whole name (`accounts create <ID>`), not just the groups.
    visibleCommands(cmd) {
      const direct = cmd.commands.filter((c) => c.name() !== 'help');
      if (cmd.parent !== null) return direct;
      const leaves: Program[] = [];
      const walk = (c: Program) => {
        if (c.commands.length === 0) leaves.push(c);
        else c.commands.filter((s) => s.name() !== 'help').forEach(walk);
      };
      direct.forEach(walk);
      return leaves;
    },
    subcommandTerm(cmd) {
      const operands = cmd.registeredArguments
        .map((a) => (a.required ? `<${a.name()}>` : `[${a.name()}...]`))
        .join(' ');
      return `${pathOf(cmd)}${operands === '' ? '' : ` ${operands}`}`;
    },
    subcommandDescription: (cmd) => cmd.summary() || cmd.description(),
  });
  for (const p of processCommands) {
    program
      .command(p.name)
      .summary(p.summary)
      .description(p.summary)
      .addHelpText('after', examplesText(p.examples))
      .action(() => {
        capture.err += `cobro ${p.name} runs only as its own process, not through another cobro\n`;
      });
  }
  return program;
}

/** Adds one Command under its group (`accounts`) or at the top; its action records what was picked. */
function addCommand(
  program: Program,
  groups: Map<string, Program>,
  command: Command,
  capture: Capture,
): void {
  const words = command.name.split(' ');
  const [first, second] = words;
  if (first === undefined || words.length > 2)
    throw new Error(`command name "${command.name}" must be one or two words`);
  const group = (): Program => {
    const g = groups.get(first) ?? program.command(first).usage('<command> [options]');
    groups.set(first, g);
    return g;
  };
  const sub = second === undefined ? group() : group().command(second);
  sub
    .summary(command.summary)
    .description(command.summary)
    .usage(
      command.usage.replace(/^cobro /, '').replace(new RegExp(`^${command.name} ?`), '') ||
        '[options]',
    )
    // A command without examples shows its usage line as the one example.
    .addHelpText('after', examplesText(command.examples ?? [command.usage]));
  if (command.operands !== undefined) {
    for (const operand of command.operands) sub.argument(`<${operand.name}>`, operand.description);
  } else {
    sub.allowExcessArguments(true);
  }
  const attributeToKey = new Map<string, string>();
  for (const [key, def] of Object.entries(command.options)) {
    const option = new Option(flagsOf(key, def), def.description ?? '');
    attributeToKey.set(option.attributeName(), key);
    sub.addOption(option);
  }
  sub.action(() => {
    const values: Record<string, string | boolean | undefined> = {};
    for (const [attribute, value] of Object.entries(sub.opts())) {
      values[attributeToKey.get(attribute) ?? attribute] = value as string | boolean | undefined;
    }
    capture.picked = { command, args: { values, positionals: [...sub.args] } };
  });
}

/** Builds the commander program: one subcommand per Command, two-word names grouped under their first word. */
function buildProgram(capture: Capture, options: ResolveOptions): Program {
  const program = rootProgram(capture, helpWidth(options));
  const groups = new Map<string, Program>();
  for (const command of options.commands ?? allCommands())
    addCommand(program, groups, command, capture);
  for (const [word, g] of groups) {
    if (g.commands.length === 0) continue;
    const names = g.commands.map((c) => c.name()).filter((n) => n !== 'help');
    if (g.description() === '')
      g.description(`${word}: ${names.join(', ')}`).summary(`${word}: ${names.join(', ')}`);
    g.exitOverride()
      .configureOutput(program.configureOutput())
      .configureHelp(program.configureHelp());
  }
  return program;
}

/** The top-level help, as `cobro --help` prints it. */
export function helpText(options: ResolveOptions = {}): string {
  const capture: Capture = { out: '', err: '', picked: null };
  return buildProgram(capture, options).helpInformation();
}

/** Resolves argv to a command and its parsed arguments, or to the output to print (help, a usage error). */
export function resolve(
  argvIn: readonly string[],
  options: ResolveOptions = {},
): Resolved | CommandOutput {
  if (argvIn.length === 0) return ok(helpText(options));
  const argv = argvIn[0] === 'help' ? [...argvIn.slice(1), '--help'] : argvIn;
  const capture: Capture = { out: '', err: '', picked: null };
  const program = buildProgram(capture, options);
  try {
    program.parse([...argv], { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    if (
      error.code === 'commander.helpDisplayed' ||
      error.code === 'commander.help' ||
      error.code === 'commander.version'
    ) {
      // `--help` and `help X` exit 0 with help on stdout; a bare group (`cobro accounts`) prints its help on stderr.
      return { exitCode: error.exitCode === 0 ? 0 : 2, stdout: capture.out, stderr: capture.err };
    }
    // A usage error: commander has written the message to the captured stderr.
    const suggestion =
      error.code === 'commander.unknownCommand'
        ? suggest(argv, options.commands ?? allCommands())
        : '';
    const hint = `${suggestion}(run \`cobro ${helpPathOf(argv)}--help\` for usage)\n`;
    return {
      exitCode: 2,
      stdout: capture.out,
      stderr: capture.err + (capture.err.includes('Usage:') ? '' : hint),
    };
  }
  if (capture.picked !== null) return capture.picked;
  // Only the process commands' actions end here without a pick (serve/worker reached through the socket).
  return fail(capture.err || `unknown command: ${argv.join(' ')}`, 2);
}

/** Levenshtein distance, for suggesting a command close to a mistyped one. */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(
        row[j]! + 1,
        next[j - 1]! + 1,
        row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    row = next;
  }
  return row[b.length]!;
}

/** `(Did you mean accounts?)` for `cobro acounts`, `(Did you mean accounts list?)` for `cobro accounts lst`. */
function suggest(argv: readonly string[], known: readonly Command[]): string {
  const names = [...processCommands.map((p) => p.name), ...known.map((c) => c.name)];
  const [first, second] = argv;
  const group = names.some((n) => n.startsWith(`${first} `));
  const candidates = group
    ? names
        .filter((n) => n.startsWith(`${first} `))
        .map((n) => ({ name: n, word: n.split(' ')[1]!, typed: second ?? '' }))
    : [...new Set(names.map((n) => n.split(' ')[0]!))].map((w) => ({
        name: w,
        word: w,
        typed: first ?? '',
      }));
  const best = candidates
    .map((c) => ({ ...c, d: distance(c.typed, c.word) }))
    .filter((c) => c.d <= Math.max(1, Math.floor(c.word.length / 3)))
    .sort((a, b) => a.d - b.d)[0];
  return best === undefined ? '' : `(Did you mean ${best.name}?)\n`;
}

/** `accounts create ` for argv `accounts create --bogus`, so the hint names the command's own help. */
function helpPathOf(argv: readonly string[]): string {
  const known = new Set(allCommands().flatMap((c) => c.name.split(' ')));
  const words: string[] = [];
  for (const a of argv.slice(0, 2)) {
    if (a.startsWith('-') || !known.has(a)) break;
    words.push(a);
  }
  return words.length === 0 ? '' : `${words.join(' ')} `;
}

export async function runResolved(
  resolved: Resolved,
  ctx: AppContext | null,
): Promise<CommandOutput> {
  try {
    return await runOperatorCommand(ctx, resolved.command, resolved.args);
  } catch (error) {
    ctx?.logger.error({ err: error, command: resolved.command.name }, 'command failed');
    return fail(
      `${resolved.command.name} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

export async function dispatch(argv: readonly string[], ctx: AppContext): Promise<CommandOutput> {
  const resolved = resolve(argv);
  if (!('command' in resolved)) return resolved;
  return runResolved(resolved, ctx);
}
