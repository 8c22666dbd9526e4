// The audit row of an operator's command (decision 531): every command that may change state (not read-only, not
// `migrate`) and succeeded leaves one, actor `operator`, in the chain of the account it names (`--account`, or an
// account id among its operands), else the service's. A command that records its rows itself, in its own
// transaction (`audit: 'own'`: the dispute commands), is left to do so. Imports inside, to keep `--help` fast.
import type { AppContext } from '../platform/context.ts';
import type { Command, CommandArgs } from './command.ts';

const accountId = /^acc[0-9a-f]{17}$/;

export function needsOperatorAudit(command: Command): boolean {
  return command.needsDb && command.readOnly !== true && command.audit === undefined;
}

export async function auditOperatorCommand(
  ctx: AppContext,
  command: Command,
  args: CommandArgs,
): Promise<void> {
  const [{ recordAudit, serviceChain }, { operatorActor }, { inTransaction }] = await Promise.all([
    import('../platform/audit/record.ts'),
    import('../platform/audit/actor.ts'),
    import('../platform/db/unit-of-work.ts'),
  ]);
  const named = args.values.account;
  const account =
    typeof named === 'string' ? named : args.positionals.find((p) => accountId.test(p));
  const entry = {
    chain: account ?? serviceChain,
    actor: operatorActor,
    action: `cobro ${command.name}`,
    target: args.positionals[0] ?? account ?? null,
    requestId: null,
    at: ctx.clock.now(),
  };
  await inTransaction(ctx.db, (tx) => recordAudit(tx, entry));
}
