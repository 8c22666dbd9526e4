// An operator command: parsed arguments in, text out. The same function runs in the CLI process or, when a
// `cobro serve` holds the embedded database, inside that server through its operator socket.
//
// Keep command files light: `cobro --help`, `cobro completion` and `cobro sign` import every command file of
// ./registry.ts, so a command imports the services it runs inside run() (`await import(...)`), never at the top
// (test/cli/startup.test.ts fails naming the file that drags in Kysely, TypeBox, PGlite or Fastify).
import type { AppContext } from '../platform/context.ts';

/** An object a command changed, named by its audit row (decision 675). */
export interface AuditedObject {
  /** The account that owns it, whose chain holds the row; null for an object of no account (chain `service`). */
  readonly account: string | null;
  /** Its id: the key, payout, user, batch. */
  readonly target: string | null;
  /** What the row's action adds to the command's name: a choice it made (a rotation's grace, decision 1000). */
  readonly detail?: string;
}

export interface CommandOutput {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
  /**
   * What the run changed, one audit row each (src/cli/operator-audit.ts). A command whose object's account is not
   * among its arguments (`keys revoke KEY_ID`) names it here, or its row would fall to the `service` chain.
   */
  readonly audited?: readonly AuditedObject[];
  /**
   * True when a run that answers a failure committed a change all the same (`fintoc reconcile` exits 1 reporting
   * the findings it wrote): its audit row is written as on exit 0.
   */
  readonly changed?: boolean;
  /**
   * True when a run that succeeds changed nothing (`wallet credit` with a `--key` already used for that credit): no
   * audit row is written for it, as the commands that record their own rows do for a repeated key (decision 810).
   */
  readonly unchanged?: boolean;
}

interface OptionDef {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  /** One line for `--help`. */
  readonly description?: string;
  /** The value's placeholder in `--help` (`--limit <N>`); defaults to the option's name in capitals. */
  readonly valueName?: string;
  /**
   * A string option that may be given more than once (`--query a=1 --query b=2`): its value is every one given, in
   * order (commander's collecting option). Without it the last one given wins, as commander does.
   */
  readonly repeatable?: boolean;
}

export type OptionSpec = Readonly<Record<string, OptionDef>>;

/**
 * Where a command writes stdout text that is true already, before it ends (`disputes import`: each line's result
 * as it commits), so a run cut short has said how far it got. The CLI prints it at once; a command given none
 * puts that text first in its output's stdout.
 */
export type Progress = (text: string) => void | Promise<void>;

/** A parsed option: a string, a flag, or every value of a repeatable option. */
export type OptionValue = string | boolean | readonly string[] | undefined;

export interface CommandArgs {
  readonly values: Readonly<Record<string, OptionValue>>;
  readonly positionals: readonly string[];
}

interface Operand {
  /** As shown in `--help`: `ID`. */
  readonly name: string;
  readonly description: string;
}

export interface Command {
  /** One or two words: `migrate`, `accounts create`. */
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
  readonly options: OptionSpec;
  /** The required positional arguments, in order. Without it the command takes none (decision 795). */
  readonly operands?: readonly Operand[];
  /** Full command lines shown under "Examples:" in the command's `--help`. */
  readonly examples?: readonly string[];
  /** False for commands that never touch the database (`sign`). */
  readonly needsDb: boolean;
  /**
   * True for commands that only read: the CLI opens the database without migrating it, in read-only transactions,
   * and refuses with a clear message when the database is missing or its schema is behind this cobro's.
   */
  readonly readOnly?: boolean;
  /**
   * True when the first positional names a file the command reads (`payouts import FILE`): it is made absolute
   * before the command is forwarded to a serving process, whose working directory is not the operator's.
   */
  readonly readsFile?: boolean;
  /** Options whose value is a path (`backup --to FILE`): made absolute before the command is forwarded. */
  readonly pathOptions?: readonly string[];
  /**
   * True for commands of the embedded database alone (`backup`): refused with DATABASE_URL set before anything
   * opens, and run on the database as it is, never migrated first.
   */
  readonly embeddedOnly?: boolean;
  /**
   * True for a command that must run with no `cobro serve` on the database (`secrets rekey`: a server would go on
   * with the old key): never forwarded to a serving process, refused by its operator socket.
   */
  readonly ownProcess?: boolean;
  /**
   * How its audit row is made (decisions 531, 566): by default the dispatcher runs a command that may change state
   * in one transaction with its row (src/cli/operator-audit.ts); `own` records its rows in its own transactions;
   * `none` changes no state (test/cli/operator-audit.test.ts lists both).
   */
  readonly audit?: 'own' | 'none';
  run(ctx: AppContext | null, args: CommandArgs, progress?: Progress): Promise<CommandOutput>;
}

/** A success; `audited` names what it changed when its arguments do not (decision 675). */
export function ok(stdout: string, ...audited: readonly AuditedObject[]): CommandOutput {
  return {
    exitCode: 0,
    stdout: stdout.endsWith('\n') || stdout === '' ? stdout : `${stdout}\n`,
    stderr: '',
    ...(audited.length > 0 ? { audited } : {}),
  };
}

export function fail(message: string, exitCode = 1): CommandOutput {
  return { exitCode, stdout: '', stderr: message.endsWith('\n') ? message : `${message}\n` };
}

export function requireCtx(ctx: AppContext | null): AppContext {
  if (ctx === null) throw new Error('command needs the database but none was opened');
  return ctx;
}

export function stringOption(args: CommandArgs, name: string): string | undefined {
  const v = args.values[name];
  return typeof v === 'string' ? v : undefined;
}

/** Why an `--amount` is refused: the text is not a positive amount in minor units of at most 14 digits. */
export const amountOptionText =
  '--amount must be a positive integer of at most 14 digits, in minor units';

/**
 * An `--amount` as minor units, or null when it is not a positive integer of at most 14 digits (the seed's amount
 * bound, limits.amountMinorMax, is exactly the 14 digits, which src/limits/index.ts asserts).
 */
export function amountOptionMinor(text: string): bigint | null {
  return /^\d{1,14}$/.test(text) && BigInt(text) > 0n ? BigInt(text) : null;
}

/** Every value of a repeatable option, in the order given; empty when it was not given. */
export function stringsOption(args: CommandArgs, name: string): readonly string[] {
  const v = args.values[name];
  if (Array.isArray(v)) return v as readonly string[];
  return typeof v === 'string' ? [v] : [];
}

/** Why a command of its own process is refused while a `cobro serve` holds DATA_DIR. */
export function ownProcessText(name: string): string {
  return `cobro ${name} runs with no cobro serve on the database: stop the server on this DATA_DIR first`;
}

/** Why an embedded-only command refuses to run on PostgreSQL, and what to use there. */
export function embeddedOnlyText(name: string): string {
  return `cobro ${name} is for the embedded database (no DATABASE_URL): on PostgreSQL use pg_dump or pg_basebackup and restore with pg_restore or a base backup plus WAL (docs/operations.md, "Backup and restore")`;
}
