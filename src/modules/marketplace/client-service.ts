// Marketplace clients (seed "Marketplace clients"): the sub-merchants a membership pays, with their bank account.
import type { AppContext } from '../../platform/context.ts';
import type { DbOrTx, Tx } from '../../platform/db/types.ts';
import { notFound, validationError } from '../../platform/errors/errors.ts';
import { newId } from '../../platform/ids/ids.ts';
import { bpsToNumber } from '../../platform/money/percent.ts';
import { isValidRut } from '../../platform/ids/rut.ts';
import { isBankAccountNumber } from '../../platform/ids/bank-account-number.ts';
import { formatTimestamp } from '../../platform/time/time-format.ts';
import { bankExists } from '../reference/repository.ts';
import { recordDestinationChange } from '../accounts/destination-change.ts';
import {
  clientMembershipDetails,
  clientShareStates,
  countClientMemberships,
  findClient,
  findClientForUpdate,
  type ClientRow,
} from './repository.ts';
import type { ClientCreate, ClientUpdate } from './schemas.ts';
import { shareStatuses, type ShareStatus } from './types.ts';

async function checkBank(
  db: DbOrTx,
  bank: { sbif?: string | undefined; num?: string | undefined; rut?: string | undefined },
): Promise<void> {
  const problems: Record<string, string> = {};
  if (bank.sbif !== undefined && !(await bankExists(db, bank.sbif)))
    problems['bank.sbif'] = 'invalid';
  // Digits as sent (decision 1175): a padded or signed number is refused, never stored changed.
  if (bank.num !== undefined && !isBankAccountNumber(bank.num)) problems['bank.num'] = 'invalid';
  if (bank.rut !== undefined && !isValidRut(bank.rut)) problems['bank.rut'] = 'invalid';
  if (Object.keys(problems).length > 0) throw validationError(problems);
}

function baseView(ctx: AppContext, row: ClientRow, affiliations: number) {
  return {
    id: row.id,
    status: row.status,
    name: row.name,
    phone: row.phone,
    email: row.email,
    affiliations,
    created_at: formatTimestamp(row.created_at, ctx.config.timeZone),
    // The reference renders a never-updated client with the text "null" (reference §4.1).
    update_at:
      row.updated_at === null ? 'null' : formatTimestamp(row.updated_at, ctx.config.timeZone),
  };
}

async function clientView(ctx: AppContext, row: ClientRow) {
  const b = baseView(ctx, row, await countClientMemberships(ctx.db, row.id));
  return {
    id: b.id,
    status: b.status,
    name: b.name,
    phone: b.phone,
    email: b.email,
    // The seed types bank.type as a string in the client resource (decision 041).
    bank: {
      sbif: row.bank_sbif,
      rut: row.bank_rut,
      type: String(row.bank_type),
      num: row.bank_num,
    },
    affiliations: b.affiliations,
    created_at: b.created_at,
    update_at: b.update_at,
  };
}

/**
 * Where the client's money in one membership stands: `not found` before any payment, otherwise the least
 * advanced state among its shares, so a membership shows `paid` only when every share has been deposited.
 */
function detailStatus(states: readonly ShareStatus[]): ShareStatus | 'not found' {
  for (const s of shareStatuses) if (states.includes(s)) return s;
  return 'not found';
}

export async function createClient(ctx: AppContext, accountId: string, body: ClientCreate) {
  await checkBank(ctx.db, body.bank);
  const id = newId('ma', 18);
  await ctx.db
    .insertInto('ma_clients')
    .values({
      id,
      account_id: accountId,
      status: 'register',
      name: body.name,
      phone: body.phone,
      email: body.email,
      bank_sbif: body.bank.sbif,
      bank_type: Number(body.bank.type),
      bank_num: body.bank.num,
      bank_rut: body.bank.rut,
      created_at: ctx.clock.now(),
      updated_at: null,
    })
    .execute();
  return getClient(ctx, accountId, id);
}

export async function getClient(ctx: AppContext, accountId: string, id: string) {
  const row = await findClient(ctx.db, accountId, id);
  if (row === undefined) throw notFound('client');
  return clientView(ctx, row);
}

/** Partial update: only the fields sent change, bank fields one by one. Answers with the membership details. */
export async function updateClient(
  ctx: AppContext,
  tx: Tx,
  accountId: string,
  id: string,
  body: ClientUpdate,
) {
  // Locked in the update's own transaction (ctx.db is the command's), read before the write (decision 815).
  const row = await findClientForUpdate(tx, accountId, id);
  if (row === undefined) throw notFound('client');
  if (body.bank !== undefined) await checkBank(ctx.db, body.bank);
  const bank = body.bank ?? {};
  await ctx.db
    .updateTable('ma_clients')
    .set({
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.phone !== undefined ? { phone: body.phone } : {}),
      ...(bank.sbif !== undefined ? { bank_sbif: bank.sbif } : {}),
      ...(bank.type !== undefined ? { bank_type: bank.type } : {}),
      ...(bank.num !== undefined ? { bank_num: bank.num } : {}),
      ...(bank.rut !== undefined ? { bank_rut: bank.rut } : {}),
      updated_at: ctx.clock.now(),
    })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .execute();
  const updated = await findClient(ctx.db, accountId, id);
  if (updated === undefined) throw notFound('client');
  await recordDestinationChange(ctx, tx, {
    accountId,
    subject: 'marketplace_client_bank',
    subjectId: id,
    source: 'api',
    previous: bankOf(row),
    current: bankOf(updated),
  });
  return updatedClientView(ctx, updated, id);
}

/** A client's bank account as the API and the destination log write it. */
function bankOf(row: ClientRow) {
  return {
    sbif: row.bank_sbif,
    type: String(row.bank_type),
    num: row.bank_num,
    rut: row.bank_rut,
  };
}

/** An updated client with its membership details (the seed's answer to PUT). */
async function updatedClientView(ctx: AppContext, updated: ClientRow, id: string) {
  const details = await clientMembershipDetails(ctx.db, id);
  const states = await clientShareStates(ctx.db, id);
  const b = baseView(ctx, updated, await countClientMemberships(ctx.db, id));
  return {
    id: b.id,
    status: b.status,
    name: b.name,
    phone: b.phone,
    email: b.email,
    bank: bankOf(updated),
    affiliations: b.affiliations,
    created_at: b.created_at,
    update_at: b.update_at,
    // The seed's table: an array of objects, one per membership (the reference sample's extra nesting is not kept).
    affiliations_details: details.map((d) => ({
      id: d.id,
      status: detailStatus(states.filter((s) => s.membership_id === d.id).map((s) => s.status)),
      token: d.token,
      name: d.name,
      percentage_affiliation: bpsToNumber(d.merchant_bps),
      percentage_client: bpsToNumber(d.bps),
    })),
  };
}

/** DELETE is a soft delete: the client stays for its history and can no longer receive new payments. */
export async function suspendClient(ctx: AppContext, accountId: string, id: string) {
  const updated = await ctx.db
    .updateTable('ma_clients')
    .set({ status: 'suspended', updated_at: ctx.clock.now() })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .returning('id')
    .executeTakeFirst();
  if (updated === undefined) throw notFound('client');
  return { status: 'suspended' as const, id: updated.id };
}
