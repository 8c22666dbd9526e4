// Parses argv with commander against the declarative Command objects of ./registry.ts and runs the one named.
// Everything here is pure: output is captured into a CommandOutput (never written, never process.exit), so the
// same resolution serves the CLI process, the operator socket inside `cobro serve`, and tests.
import { CommanderError } from 'commander';
import type { AppContext } from '../platform/context.ts';
import { fail, ok, ownProcessText, type CommandOutput, type Progress } from './command.ts';
import { allCommands, processCommands } from './all-commands.ts';
import {
  buildProgram,
  helpText,
  type Capture,
  type Resolved,
  type ResolveOptions,
} from './program.ts';
import { helpPathOf, suggest } from './suggest.ts';
import { runOperatorCommand } from './operator-audit.ts';

/** Resolves argv to a command and its parsed arguments, or to the output to print (help, a usage error). */
export function resolve(
  argvIn: readonly string[],
  options: ResolveOptions = {},
): Resolved | CommandOutput {
  if (argvIn.length === 0) return ok(helpText(options));
  if (argvIn[0] === 'help' && namesUnknownCommand(argvIn.slice(1), options))
    // `cobro help nope` is the usage error of `cobro nope`, not the whole help with exit 0.
    return resolve(argvIn.slice(1), options);
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

/** Whether the words of `help <words>` name no command: `nope`, `accounts nope` (options are left to --help). */
function namesUnknownCommand(words: readonly string[], options: ResolveOptions): boolean {
  const names = [
    ...processCommands.map((p) => p.name),
    ...(options.commands ?? allCommands()).map((c) => c.name),
  ];
  const [first, second] = words;
  if (first === undefined || first.startsWith('-') || first === 'help') return false;
  if (!names.some((n) => n === first || n.startsWith(`${first} `))) return true;
  if (names.includes(first) || second === undefined || second.startsWith('-')) return false;
  return !names.includes(`${first} ${second}`);
}

/**
 * Runs the command; what it prints before it ends goes to `progress` when given (the CLI, the ops socket).
 * `bugStack`: `log` (a server's log keeps a bug's stack) or `debug` (the CLI's own process: its stderr is the
 * operator's, so the stack shows only with LOG_LEVEL=debug, as for any error of main.ts).
 */
export async function runResolved(
  resolved: Resolved,
  ctx: AppContext | null,
  progress?: Progress,
  bugStack: 'log' | 'debug' = 'log',
): Promise<CommandOutput> {
  try {
    return await runOperatorCommand(ctx, resolved.command, resolved.args, progress);
  } catch (error) {
    return await failureOutput(resolved.command.name, error, ctx, bugStack);
  }
}

/**
 * What an error thrown by a command prints (decision 1145). Only a bug is logged, with its stack: a refusal the
 * service threw (an unknown dispute) and a database that stopped answering are the operator's one line, as a
 * start-up error is, and say what to do.
 */
async function failureOutput(
  name: string,
  error: unknown,
  ctx: AppContext | null,
  bugStack: 'log' | 'debug',
): Promise<CommandOutput> {
  const [{ ApiError, errorCatalogue }, { isDatabaseUnavailable }, { errorText }] =
    await Promise.all([
      import('../platform/errors/errors.ts'),
      import('../platform/db/outage.ts'),
      import('../platform/process/startup-error.ts'),
    ]);
  if (isDatabaseUnavailable(error))
    return fail(
      `${name}: the database stopped answering (${errorText(error)}): the command may not have finished; once it answers, see what it did (\`cobro audit list --account ID\`) before running it again`,
    );
  if (error instanceof ApiError && errorCatalogue[error.code].http < 500)
    return fail(`${name}: ${error.message}`);
  if (bugStack === 'log') {
    ctx?.logger.error({ err: error, command: name }, 'command failed');
    return fail(`${name} failed: ${errorText(error)}`);
  }
  ctx?.logger.debug({ err: error, command: name }, 'command failed');
  const hint =
    ctx?.logger.isLevelEnabled('debug') === true ? '' : ' (LOG_LEVEL=debug shows the stack)';
  return fail(`${name} failed: ${errorText(error)}${hint}`);
}

/**
 * Resolves and runs argv. `inServer`: it came to a serving process's operator socket, where a command of its own
 * process (`ownProcess`) is refused.
 */
export async function dispatch(
  argv: readonly string[],
  ctx: AppContext,
  progress?: Progress,
  options: ResolveOptions & { readonly inServer?: boolean } = {},
): Promise<CommandOutput> {
  const resolved = resolve(argv, options);
  if (!('command' in resolved)) return resolved;
  if (options.inServer === true && resolved.command.ownProcess === true)
    return fail(ownProcessText(resolved.command.name));
  return runResolved(resolved, ctx, progress);
}
