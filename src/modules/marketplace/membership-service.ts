// Memberships (seed "Marketplace memberships"): a named split of a payment between the merchant and clients.
// The merchant sends the membership's token as `marketplace` when creating a transaction.
import type { AppContext } from '../../platform/context.ts';
import {
  notFound,
  ruleFailure,
  validationError,
  type RuleFailure,
} from '../../platform/errors/errors.ts';
import { newId, randomHex } from '../../platform/ids/ids.ts';
import { bpsPerWhole, formatBps } from '../../platform/money/percent.ts';
import { findMembership, membershipClients, type MembershipRow } from './repository.ts';
import type { MembershipCreate } from './schemas.ts';
import { marketplaceLimits } from '../../limits/index.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { looseTextAt } from '../../platform/http/json-body.ts';
import { percentAt } from '../../platform/http/percent-at.ts';

interface ClientShareInput {
  readonly clientId: string;
  readonly bps: number;
}

/** Reads the `[client_id, percentage]` pairs, naming the exact pair and position that is wrong. */
function parsePairs(pairs: readonly (readonly unknown[])[]): ClientShareInput[] {
  const problems: Record<string, string> = {};
  const out: ClientShareInput[] = [];
  const seen = new Set<string>();
  pairs.forEach((pair, i) => {
    if (pair.length !== 2) {
      problems[`affiliation.${i}`] = 'invalid';
      return;
    }
    const id = looseTextAt(pair, '0');
    if (!id.ok) {
      problems[`affiliation.${i}.0`] = id.problem;
      return;
    }
    const clientId = id.text;
    if (clientId.length > marketplaceLimits.clientIdLengthMax) {
      problems[`affiliation.${i}.0`] = 'too long';
      return;
    }
    if (seen.has(clientId)) {
      problems[`affiliation.${i}.0`] = 'repeated';
      return;
    }
    seen.add(clientId);
    // The pair's percentage is read as the merchant's is, in its 6 characters; a client's share is never 0.
    const share = percentAt(pair, '1', {
      lengthMax: marketplaceLimits.percentageLengthMax,
      zeroAllowed: false,
    });
    if (!share.ok) {
      problems[`affiliation.${i}.1`] = share.problem;
      return;
    }
    out.push({ clientId, bps: share.bps });
  });
  if (Object.keys(problems).length > 0) throw validationError(problems);
  return out;
}

/**
 * The membership's body with its percentages as read, for the Idempotency-Key's hash (decision 940): a percentage
 * `80` and `"80"` are one request. The merchant's is read too (decision 1180): the guards hand the number `1e1` on
 * as the text "1e1", which as a string is refused. A body either reading refuses is hashed as it came.
 */
export function membershipBodyAsRead(body: MembershipCreate): unknown {
  try {
    return {
      ...body,
      percentage: readMerchantBps(body),
      affiliation: parsePairs(body.affiliation),
    };
  } catch {
    return body;
  }
}

/**
 * The merchant's own percentage, read as the pairs' are (decision 1170): its schema has the input guards hand a
 * number on as its written text (decision 1180). The merchant may keep 0.
 */
function readMerchantBps(body: MembershipCreate): number {
  const merchant = percentAt(body, 'percentage', {
    lengthMax: marketplaceLimits.percentageLengthMax,
    zeroAllowed: true,
  });
  if (!merchant.ok) throw validationError({ percentage: merchant.problem });
  return merchant.bps;
}

async function membershipView(ctx: AppContext, row: MembershipRow) {
  const clients = await membershipClients(ctx.db, row.id);
  return {
    id: row.id,
    status: row.status,
    name: row.name,
    token: row.token,
    percentage: formatBps(row.merchant_bps),
    affiliations: clients.map((c) => ({ id: c.id, name: c.name, percentage: formatBps(c.bps) })),
  };
}

export async function createMembership(
  ctx: AppContext,
  accountId: string,
  body: MembershipCreate,
): Promise<Awaited<ReturnType<typeof membershipView>> | RuleFailure> {
  const merchantBps = readMerchantBps(body);
  const shares = parsePairs(body.affiliation);
  const totalBps = shares.reduce((sum, s) => sum + s.bps, merchantBps);
  if (totalBps !== bpsPerWhole) {
    throw validationError({
      percentage: `with the affiliation percentages adds up to ${formatBps(totalBps)}, not 100.00`,
    });
  }
  const id = newId('ma', 18);
  const outcome = await inTransaction(ctx.db, async (tx): Promise<RuleFailure | null> => {
    // Lock the clients so a concurrent DELETE cannot suspend one between the check and the insert.
    const rows = await tx
      .selectFrom('ma_clients')
      .select(['id', 'status'])
      .where('account_id', '=', accountId)
      .where(
        'id',
        'in',
        shares.map((s) => s.clientId),
      )
      .orderBy('id')
      .forUpdate()
      .execute();
    const unknown = shares
      .map((s, i) => ({ s, i }))
      .filter(({ s }) => !rows.some((r) => r.id === s.clientId));
    if (unknown.length > 0) {
      throw validationError(
        Object.fromEntries(unknown.map(({ i }) => [`affiliation.${i}.0`, 'not found'])),
      );
    }
    const suspended = rows.find((r) => r.status !== 'register');
    if (suspended !== undefined) return ruleFailure('client_suspended', { clientId: suspended.id });
    const now = ctx.clock.now();
    await tx
      .insertInto('ma_memberships')
      .values({
        id,
        account_id: accountId,
        status: 'register',
        name: body.name,
        token: randomHex(32),
        merchant_bps: merchantBps,
        created_at: now,
        updated_at: null,
      })
      .execute();
    await tx
      .insertInto('ma_membership_clients')
      .values(
        shares.map((s, position) => ({
          membership_id: id,
          client_id: s.clientId,
          position,
          bps: s.bps,
        })),
      )
      .execute();
    return null;
  });
  if (outcome !== null) return outcome;
  return getMembership(ctx, accountId, id);
}

export async function getMembership(ctx: AppContext, accountId: string, id: string) {
  const row = await findMembership(ctx.db, accountId, id);
  if (row === undefined) throw notFound('membership');
  return membershipView(ctx, row);
}

/** DELETE suspends: the token stops taking new payments; payments already made keep their shares. */
export async function suspendMembership(ctx: AppContext, accountId: string, id: string) {
  const updated = await ctx.db
    .updateTable('ma_memberships')
    .set({ status: 'suspended', updated_at: ctx.clock.now() })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .returning('id')
    .executeTakeFirst();
  if (updated === undefined) throw notFound('membership');
  return { status: 'suspended' as const, id: updated.id };
}
