// The audit row of an operator's command (decisions 531, 566, 675): every command that may change state (not
// read-only, not `audit: 'none'`) runs in ONE transaction with its row, so the change and its record commit together
// or not at all. The row names actor `operator`, in the chain of the account that owns what the command changed: the
// account and object its output names (`audited`: `keys revoke KEY_ID` learns the key's account only by reading it),
// else the account its arguments name (`--account`, or an account id among its operands), else the service's. It is
// written when the command succeeds (exit 0) unless it says it changed nothing (`unchanged`: a repeated key,
// decision 810), or when it says it changed something though it answers a failure (`changed`);
// any other failure commits what it wrote with no row. A command that records its rows itself, in its
// own transactions (`audit: 'own'`: the dispute commands, whose CSV import records one row a line, and `payouts
// import`, one row a payout it moves), runs as it is.
// Imports inside, to keep `--help` fast.
import type { AppContext } from '../platform/context.ts';
import type { Tx } from '../platform/db/types.ts';
import type { AuditedObject, Command, CommandArgs, CommandOutput, Progress } from './command.ts';

const accountId = /^acc[0-9a-f]{17}$/;

/** Whether the dispatcher runs the command in a transaction with its audit row (test/cli/operator-audit.test.ts). */
export function needsOperatorAudit(command: Command): boolean {
  return command.needsDb && command.readOnly !== true && command.audit === undefined;
}

/** The rows of a run: the objects it names (decision 675), else the account of its arguments, else `service`'s. */
function auditedObjects(args: CommandArgs, output: CommandOutput): readonly AuditedObject[] {
  if (output.audited !== undefined && output.audited.length > 0) return output.audited;
  const named = args.values.account;
  const account =
    typeof named === 'string' ? named : args.positionals.find((p) => accountId.test(p));
  return [{ account: account ?? null, target: args.positionals[0] ?? account ?? null }];
}

async function recordOperatorAudit(
  tx: Tx,
  ctx: AppContext,
  command: Command,
  objects: readonly AuditedObject[],
): Promise<void> {
  const [{ recordAudit, serviceChain }, { operatorActor }] = await Promise.all([
    import('../platform/audit/record.ts'),
    import('../platform/audit/actor.ts'),
  ]);
  for (const object of objects) {
    await recordAudit(tx, {
      chain: object.account ?? serviceChain,
      actor: operatorActor,
      action: `cobro ${command.name}${object.detail === undefined ? '' : ` ${object.detail}`}`,
      target: object.target,
      requestId: null,
      at: ctx.clock.now(),
    });
  }
}

/**
 * Runs an operator's command: one that may change state in a transaction of the dispatcher's, its context's `db`
 * that transaction (a block of the command's own joins it under a savepoint), its audit row last, before the commit.
 */
export async function runOperatorCommand(
  ctx: AppContext | null,
  command: Command,
  args: CommandArgs,
  progress?: Progress,
): Promise<CommandOutput> {
  if (ctx === null || !needsOperatorAudit(command)) return command.run(ctx, args, progress);
  const { inTransaction } = await import('../platform/db/unit-of-work.ts');
  const output = await inTransaction(ctx.db, async (tx) => {
    const txCtx: AppContext = { ...ctx, db: tx };
    const output = await command.run(txCtx, args, progress);
    if ((output.exitCode === 0 && output.unchanged !== true) || output.changed === true)
      await recordOperatorAudit(tx, ctx, command, auditedObjects(args, output));
    return output;
  });
  // A command that revoked or rotated credentials (or turned strict signing on) forgot the accounts this process
  // kept before the commit, when a request could still read and keep the old row again: forget once more now that
  // the change is visible (decision 740). Cheap: each token costs one lookup the next time it is used.
  ctx.accounts.forgetKept();
  return output;
}
