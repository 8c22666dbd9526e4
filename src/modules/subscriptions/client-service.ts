// Subscription clients (reference §7.1-7.5): the payers a merchant subscribes to plans.
import { sql } from 'kysely';
import type { AppContext } from '../../platform/context.ts';
import { notFound, validationError } from '../../platform/errors/errors.ts';
import { newId } from '../../platform/ids/ids.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { limits, subscriptionLimits } from '../../limits/index.ts';
import { formatDate, formatTimestamp } from '../../platform/time/time-format.ts';
import { dayRange } from './date-filter.ts';
import { moveSubscription } from './subscription-transition.ts';
import { liveStatuses } from './states.ts';
import { clientCardsView, clientSubscriptionView } from './client-extras.ts';
import { findClient, listClients, type ClientRow } from './repository.ts';
import type { ClientCreate, ClientUpdate, CustomersQueryInput } from './schemas.ts';

function parametersText(params: object | undefined): string | null | undefined {
  if (params === undefined) return undefined;
  const text = JSON.stringify(params);
  if (text.length > limits.additionalParametersCharsMax)
    throw validationError({ additional_parameters: 'too long' });
  return text;
}

function parametersOf(row: ClientRow): Record<string, unknown> {
  return row.additional_parameters === null
    ? {}
    : (JSON.parse(row.additional_parameters) as Record<string, unknown>);
}

function contact(row: ClientRow) {
  return {
    name: row.name,
    phone: row.phone,
    email: row.email,
    address: row.address,
    country: row.country,
    region: row.region,
    city: row.city,
    postal_code: row.postal_code,
  };
}

/** reference §7.3 shows the update time with month and day not zero-padded (`2023-10-2 08:32:52`). */
function unpaddedTimestamp(at: Date, timeZone: string): string {
  const [date, time] = formatTimestamp(at, timeZone).split(' ') as [string, string];
  const [y, m, d] = date.split('-') as [string, string, string];
  return `${y}-${Number(m)}-${Number(d)} ${time}`;
}

/** The client as GET /api/suclient/{id} and the customers list show it (reference §7.2). */
async function clientView(ctx: AppContext, row: ClientRow) {
  const tz = ctx.config.timeZone;
  return {
    status: 'active',
    id: row.id,
    rut: row.rut,
    ...contact(row),
    created_at: formatTimestamp(row.created_at, tz),
    update_at: row.updated_at === null ? null : formatTimestamp(row.updated_at, tz),
    active_cards: await clientCardsView(ctx, row),
    additional_parameters: parametersOf(row),
    subcriptions: await clientSubscriptionView(ctx, row),
  };
}

/** Whether a write lost the client's e-mail to another live client (migration 0740's unique index). */
function isEmailTaken(error: unknown): boolean {
  const { code, constraint } = (error ?? {}) as { code?: unknown; constraint?: unknown };
  return code === '23505' && constraint === 'su_clients_live_email_any_case';
}

async function emailTaken(
  ctx: AppContext,
  accountId: string,
  email: string,
  exceptId?: string,
): Promise<boolean> {
  const other = await findClient(ctx.db, accountId, email);
  return other !== undefined && other.id !== exceptId;
}

export async function createClient(ctx: AppContext, accountId: string, body: ClientCreate) {
  const params = parametersText(body.additional_parameters);
  const now = await ctx.accountClock.now(accountId, ctx.db);
  const id = newId('cl', 20);
  // The partial unique index keeps one live client per e-mail in any case even when two creates race (decision 910).
  const inserted = await ctx.db
    .insertInto('su_clients')
    .values({
      id,
      account_id: accountId,
      email: body.email,
      name: body.name,
      rut: body.rut ?? null,
      phone: body.phone,
      address: body.address ?? null,
      country: body.country ?? null,
      region: body.region ?? null,
      city: body.city ?? null,
      postal_code: body.postal_code ?? null,
      additional_parameters: params ?? null,
      created_at: now,
      updated_at: null,
      deleted_at: null,
    })
    // Its only unique index besides the keys: (account_id, lower(email), email_twin) of live clients.
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted === undefined) throw validationError({ email: 'already registered' });
  return {
    status: 'active',
    id,
    rut: inserted.rut,
    ...contact(inserted),
    created_at: formatDate(inserted.created_at, ctx.config.timeZone),
    update_at: null,
    subcriptions: null,
    additional_parameters: parametersOf(inserted),
  };
}

export async function getClient(ctx: AppContext, accountId: string, key: string) {
  const row = await findClient(ctx.db, accountId, key);
  if (row === undefined) throw notFound('client');
  return clientView(ctx, row);
}

/** Partial update (reference §7.3): only the fields sent change; the answer has no `rut` nor `active_cards`. */
export async function updateClient(
  ctx: AppContext,
  accountId: string,
  key: string,
  body: ClientUpdate,
) {
  const row = await findClient(ctx.db, accountId, key);
  if (row === undefined) throw notFound('client');
  const params = parametersText(body.additional_parameters);
  if (body.email !== undefined && (await emailTaken(ctx, accountId, body.email, row.id)))
    throw validationError({ email: 'already registered' });
  const now = await ctx.accountClock.now(accountId, ctx.db);
  // Under a savepoint: a client that took the e-mail after emailTaken looked (two PUTs at once) breaks the unique
  // index, which is the same refusal, not a failure of the request's transaction.
  const updated = await inTransaction(ctx.db, (sp) =>
    sp
      .updateTable('su_clients')
      .set({
        // A twin kept by migration 0740 that takes a new e-mail is an ordinary client again (emailTaken checked it).
        ...(body.email !== undefined
          ? {
              email: body.email,
              email_twin: sql<number>`CASE WHEN lower(${body.email}) = lower(email) THEN email_twin ELSE 0 END`,
            }
          : {}),
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.phone !== undefined ? { phone: body.phone } : {}),
        ...(body.address !== undefined ? { address: body.address } : {}),
        ...(body.country !== undefined ? { country: body.country } : {}),
        ...(body.region !== undefined ? { region: body.region } : {}),
        ...(body.city !== undefined ? { city: body.city } : {}),
        ...(body.postal_code !== undefined ? { postal_code: body.postal_code } : {}),
        ...(params !== undefined ? { additional_parameters: params } : {}),
        updated_at: now,
      })
      .where('id', '=', row.id)
      .returningAll()
      .executeTakeFirstOrThrow(),
  ).catch((error: unknown) => {
    if (isEmailTaken(error)) throw validationError({ email: 'already registered' });
    throw error;
  });
  const tz = ctx.config.timeZone;
  return {
    status: 'active',
    id: updated.id,
    ...contact(updated),
    created_at: formatTimestamp(updated.created_at, tz),
    update_at: unpaddedTimestamp(now, tz),
    additional_parameters: parametersOf(updated),
    subcriptions: await clientSubscriptionView(ctx, updated),
  };
}

/** DELETE keeps the row for its subscriptions' history; the client is gone from every read. */
export async function deleteClient(ctx: AppContext, accountId: string, key: string) {
  const row = await findClient(ctx.db, accountId, key);
  if (row === undefined) throw notFound('client');
  const now = await ctx.accountClock.now(accountId, ctx.db);
  await ctx.db
    .updateTable('su_clients')
    .set({ deleted_at: now })
    .where('id', '=', row.id)
    .execute();
  // Its subscriptions end with it: nothing is charged to a deleted client.
  const live = await ctx.db
    .selectFrom('su_subscriptions')
    .select(['id', 'status'])
    .where('client_id', '=', row.id)
    .where('status', 'in', liveStatuses)
    .forUpdate()
    .execute();
  for (const sub of live) await moveSubscription(ctx.db, sub, 'delete', now);
  return { status: 'success' as const, id: row.id };
}

/** reference §7.5: `[{"Customers":[...]}]`, created between date_init and date_end (both default to today). */
export async function listCustomers(
  ctx: AppContext,
  accountId: string,
  query: CustomersQueryInput,
) {
  const { from, before } = await dayRange(ctx, accountId, query.date_init, query.date_end);
  const size = query.per_page ?? subscriptionLimits.customersPerPageMax;
  const rows = await listClients(
    ctx.db,
    accountId,
    { from, before },
    { offset: ((query.page ?? 1) - 1) * size, size },
  );
  const customers = [];
  for (const row of rows) customers.push(await clientView(ctx, row));
  return [{ Customers: customers }];
}
