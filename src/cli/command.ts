// An operator command: parsed arguments in, text out. The same function runs in the CLI process or, when a
// `cobro serve` holds the embedded database, inside that server through its operator socket.
import type { AppContext } from '../platform/context.ts';

export interface CommandOutput {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

export type OptionSpec = Readonly<Record<string, { type: 'string' | 'boolean'; short?: string }>>;

export interface CommandArgs {
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
  readonly positionals: readonly string[];
}

export interface Command {
  /** One or two words: `migrate`, `accounts create`. */
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
  readonly options: OptionSpec;
  /** False for commands that never touch the database (`sign`). */
  readonly needsDb: boolean;
  /**
   * True when the first positional names a file the command reads (`payouts import FILE`): it is made absolute
   * before the command is forwarded to a serving process, whose working directory is not the operator's.
   */
  readonly readsFile?: boolean;
  run(ctx: AppContext | null, args: CommandArgs): Promise<CommandOutput>;
}

export function ok(stdout: string): CommandOutput {
  return { exitCode: 0, stdout: stdout.endsWith('\n') || stdout === '' ? stdout : stdout + '\n', stderr: '' };
}

export function fail(message: string, exitCode = 1): CommandOutput {
  return { exitCode, stdout: '', stderr: message.endsWith('\n') ? message : message + '\n' };
}

export function requireCtx(ctx: AppContext | null): AppContext {
  if (ctx === null) throw new Error('command needs the database but none was opened');
  return ctx;
}

export function stringOption(args: CommandArgs, name: string): string | undefined {
  const v = args.values[name];
  return typeof v === 'string' ? v : undefined;
}
