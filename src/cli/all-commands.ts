// Every command the CLI knows: the registry's Command objects, `completion` (built from them), and the two process
// commands main.ts runs itself, listed so help and completions know them.
import { fail, ok, type Command } from './command.ts';
import { completionScript, completionShells, type CompletionShell } from './completion.ts';
import { commands } from './registry.ts';

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
const completionCommand: Command = {
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
