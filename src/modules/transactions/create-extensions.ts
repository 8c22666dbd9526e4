// The create's side of the PaymentExtension port (extension.ts): which extension the request names, its checks
// before the creating transaction opens, and its attach inside it.
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import type { RuleFailure } from '../../platform/errors/errors.ts';
import { present } from './create-checks.ts';
import { extensionColumns, type ExtensionColumns, type Prepared } from './extension.ts';
import type { CreateTransactionInput } from './schemas.ts';

type NamedExtension = {
  readonly extension: AppContext['paymentExtensions'][number];
  readonly value: string;
};

/** A prepared extension that passed its checks, with the extension it belongs to. */
export interface Attaching {
  readonly extension: NamedExtension['extension'];
  readonly prepared: Extract<Prepared, { ok: true }>;
}

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
): Promise<{ readonly attaching: readonly Attaching[]; readonly failure: RuleFailure | null }> {
  for (const { extension } of named.slice(1)) errors[extension.field] = 'invalid';
  const attaching: Attaching[] = [];
  let failure: RuleFailure | null = null;
  for (const { extension, value } of named) {
    if (errors[extension.field] !== undefined) continue;
    const prepared = await extension.prepare(ctx, { ...base, at: await base.at(), value });
    if (prepared.ok) attaching.push({ extension, prepared });
    else if ('errors' in prepared) Object.assign(errors, prepared.errors);
    else failure ??= prepared.failure;
  }
  return { attaching, failure };
}

/**
 * Attaches the prepared extension in `tx` (one at most, decision 042): the row's extension columns, null for a
 * plain sale, or the extension's refusal.
 */
export async function attachExtensions(
  tx: Tx,
  attaching: readonly Attaching[],
): Promise<{ readonly ok: true; readonly columns: ExtensionColumns | null } | RuleFailure> {
  let columns: ExtensionColumns | null = null;
  for (const { extension, prepared } of attaching) {
    const attached = await prepared.attach(tx);
    if (!attached.ok) return attached.failure;
    columns = extensionColumns(extension, attached.ref);
  }
  return { ok: true, columns };
}
