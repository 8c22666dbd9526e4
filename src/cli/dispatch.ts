// Finds the command named by argv and runs it with a context (or none for commands that need no database).
import { parseArgs } from 'node:util';
import type { AppContext } from '../platform/context.ts';
import { fail, type Command, type CommandArgs, type CommandOutput } from './command.ts';
import { commands } from './registry.ts';

export interface Resolved {
  readonly command: Command;
  readonly args: CommandArgs;
}

export function helpText(): string {
  const lines = [
    'usage: cobro <command> [options]',
    '',
    '  serve                      run the API, checkout pages and background workers',
    '  worker                     run only the background workers',
    ...commands.map((c) => `  ${c.usage.replace(/^cobro /, '').padEnd(26).slice(0, 60)} ${c.summary}`),
    '',
    'Configuration comes from the environment: see README.md.',
  ];
  return lines.join('\n') + '\n';
}

export function resolve(argv: readonly string[]): Resolved | CommandOutput {
  const byLength = [...commands].sort((a, b) => b.name.split(' ').length - a.name.split(' ').length);
  const command = byLength.find((c) => {
    const words = c.name.split(' ');
    return words.every((w, i) => argv[i] === w);
  });
  if (command === undefined) return fail(`unknown command: ${argv.join(' ') || '(none)'}\n\n${helpText()}`, 2);
  const rest = argv.slice(command.name.split(' ').length);
  try {
    const parsed = parseArgs({ args: [...rest], options: command.options, allowPositionals: true, strict: true });
    return { command, args: { values: parsed.values, positionals: parsed.positionals } };
  } catch (error) {
    return fail(`${error instanceof Error ? error.message : String(error)}\nusage: ${command.usage}`, 2);
  }
}

export async function runResolved(resolved: Resolved, ctx: AppContext | null): Promise<CommandOutput> {
  try {
    return await resolved.command.run(ctx, resolved.args);
  } catch (error) {
    ctx?.logger.error({ err: error, command: resolved.command.name }, 'command failed');
    return fail(`${resolved.command.name} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

export async function dispatch(argv: readonly string[], ctx: AppContext): Promise<CommandOutput> {
  const resolved = resolve(argv);
  if (!('command' in resolved)) return resolved;
  return runResolved(resolved, ctx);
}
