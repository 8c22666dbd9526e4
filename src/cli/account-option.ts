// `--account ID` of an account that does not exist: one answer for every command (decision 1155). A list filtered by
// a mistyped id printed an empty list with exit 0, which reads as "nothing there" rather than "wrong account".
import type { AppContext } from '../platform/context.ts';
import { fail, type CommandOutput } from './command.ts';

/** `no account with id ...`, exit 1, when `accountId` is given and names no account; null otherwise. */
export async function unknownAccount(
  ctx: AppContext,
  accountId: string | undefined | null,
): Promise<CommandOutput | null> {
  if (accountId === undefined || accountId === null) return null;
  const { findAccountRowById } = await import('../modules/accounts/repository.ts');
  return (await findAccountRowById(ctx.db, accountId)) === undefined
    ? fail(`no account with id ${accountId}`)
    : null;
}
