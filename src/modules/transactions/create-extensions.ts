// The create's side of the PaymentExtension port (extension.ts): which extension the request names, its checks
// before the creating transaction opens, and its attach inside it.
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import type { RuleFailure } from '../../platform/errors/errors.ts';
import { present } from './create-checks.ts';
import type { ExtensionColumns, Prepared } from './extension.ts';
import type { CreateTransactionInput } from './schemas.ts';

type NamedExtension = {
  readonly extension: AppContext['paymentExtensions'][number];
  readonly value: string;
};

export type Attaching = Extract<Prepared, { ok: true }>;

/** The extensions whose field the request fills, in the context's order. */
export function namedExtensions(
  ctx: AppContext,
  input: CreateTransactionInput,
): readonly NamedExtension[] {
  return ctx.paymentExtensions.flatMap((extension) => {
    const raw = input[extension.field];
    const value = typeof raw === 'string' ? present(raw) : null;
    return value === null ? [] : [{ extension, value }];
  });
}

/**
 * Runs the creation checks of every extension the request names. A transaction names at most one (decision 042):
 * each extension after the first named one is an invalid field, and is not checked further.
 */
export async function prepareExtensions(
  ctx: AppContext,
  named: readonly NamedExtension[],
  errors: Record<string, string>,
  base: { readonly accountId: string; readonly currency: string; readonly at: () => Promise<Date> },
): Promise<readonly Prepared[]> {
  for (const { extension } of named.slice(1)) errors[extension.field] = 'invalid';
  const prepared: Prepared[] = [];
  for (const { extension, value } of named) {
    if (errors[extension.field] !== undefined) continue;
    const p = await extension.prepare(ctx, { ...base, at: await base.at(), value });
    if (!p.ok && 'errors' in p) Object.assign(errors, p.errors);
    prepared.push(p);
  }
  return prepared;
}

/** Attaches the prepared extensions in `tx`: the columns they name on the row, or the first refusal. */
export async function attachExtensions(
  tx: Tx,
  attaching: readonly Attaching[],
): Promise<{ readonly ok: true; readonly columns: ExtensionColumns } | RuleFailure> {
  let columns: ExtensionColumns = {};
  for (const p of attaching) {
    const attached = await p.attach(tx);
    if (!attached.ok) return attached.failure;
    columns = { ...columns, ...attached.columns };
  }
  return { ok: true, columns };
}
