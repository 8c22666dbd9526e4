// The transactions list (filters by state and date, search by order or email) and one transaction with its
// timeline: created, checkout opened, paid or rejected, settled (or when it will be), and each callback sent about
// it with every delivery attempt.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../platform/context.ts';
import { transactionStatuses } from '../modules/transactions/state-machine.ts';
import { dashboardLimits } from '../limits/index.ts';
import { accountOf, queryOf, renderMessage, renderPage } from './render.ts';
import { formatMoney } from './format.ts';
import {
  findTransaction,
  listTransactions,
  parseTransactionFilter,
  transactionCallbacks,
  transactionRefunds,
  type TransactionCallback,
  type TransactionDetailRow,
  type TransactionFilter,
  type TransactionRefund,
} from './transactions.ts';

interface TimelineEntry {
  readonly at: Date;
  readonly title: string;
  readonly detail: string;
  /** `done` happened; `due` is expected (a settlement not yet reached). */
  readonly state: 'done' | 'due' | 'bad';
  readonly callback?: TransactionCallback;
}

function outcomeEntry(row: TransactionDetailRow): TimelineEntry | null {
  if (row.ended_at === null) return null;
  if (row.status === 'rejected') {
    const expired = row.rejection_reason === 'expired';
    return {
      at: row.ended_at,
      title: expired ? 'Expiró' : 'Rechazada',
      detail: expired
        ? 'El plazo de pago terminó sin un pago.'
        : (row.gateway_message ?? 'El medio de pago rechazó el cobro.'),
      state: 'bad',
    };
  }
  const card =
    row.card_last4 === null
      ? ''
      : ` · ${row.card_brand ?? 'tarjeta'} terminada en ${row.card_last4}`;
  return {
    at: row.ended_at,
    title: 'Pagada',
    detail: `${row.media ?? 'Pago'}${card}${row.authorization_code === null ? '' : ` · autorización ${row.authorization_code}`}`,
    state: 'done',
  };
}

/** A refund: asked for, then given back to the payer or refused by the processor (the money back with the merchant). */
function refundEntries(
  refund: TransactionRefund,
  format: (minor: bigint) => string,
): TimelineEntry[] {
  const amount = format(BigInt(refund.amount_minor));
  const entries: TimelineEntry[] = [
    {
      at: refund.created_at,
      title: `Reembolso de ${amount}`,
      detail: refund.subject,
      state: 'done',
    },
  ];
  if (refund.status === 'reverse_completed')
    entries.push({
      at: refund.updated_at,
      title: 'Reembolso devuelto al pagador',
      detail: amount,
      state: 'done',
    });
  else if (refund.status === 'reverse_deleted')
    entries.push({
      at: refund.updated_at,
      title: 'Reembolso rechazado',
      detail: refund.gateway_message ?? 'El procesador no lo aceptó; el monto volvió a tu cuenta.',
      state: 'bad',
    });
  else
    entries.push({
      at: refund.updated_at,
      title: 'Reembolso en curso',
      detail:
        refund.status === 'awaiting_funds'
          ? 'Espera fondos en tu billetera.'
          : 'El procesador aún no confirma la devolución.',
      state: 'due',
    });
  return entries;
}

function timelineOf(
  row: TransactionDetailRow,
  callbacks: readonly TransactionCallback[],
  refunds: readonly TransactionRefund[] = [],
  format: (minor: bigint) => string = String,
): TimelineEntry[] {
  const entries: TimelineEntry[] = [
    { at: row.created_at, title: 'Creada', detail: `Orden ${row.order}`, state: 'done' },
  ];
  if (row.checkout_opened_at !== null)
    entries.push({
      at: row.checkout_opened_at,
      title: 'Pago iniciado',
      detail: 'El pagador abrió el formulario de pago.',
      state: 'done',
    });
  const outcome = outcomeEntry(row);
  if (outcome !== null) entries.push(outcome);
  if (row.settled_at !== null)
    entries.push({
      at: row.settled_at,
      title: 'Liquidada',
      detail: 'El neto pasó al saldo de la billetera.',
      state: 'done',
    });
  else if (row.settle_due_at !== null && row.status !== 'rejected')
    entries.push({
      at: row.settle_due_at,
      title: 'Se liquidará',
      detail: `El neto estará disponible el ${row.deposit_date ?? ''}.`,
      state: 'due',
    });
  for (const refund of refunds) entries.push(...refundEntries(refund, format));
  for (const callback of callbacks) {
    entries.push({
      at: callback.created_at,
      title: `Notificación ${callback.event_type}`,
      detail: callback.url,
      state: callback.status === 'failed' ? 'bad' : 'done',
      callback,
    });
  }
  // What is still expected goes last, even when its date has passed and a worker has not reached it yet.
  return entries.sort(
    (a, b) =>
      Number(a.state === 'due') - Number(b.state === 'due') || a.at.getTime() - b.at.getTime(),
  );
}

/** The query string of a list page with the same filters, for the pager's links. */
function pageQuery(filter: TransactionFilter, page: number): string {
  return queryOf({
    q: filter.q,
    status: filter.status,
    from: filter.from,
    to: filter.to,
    page: page > 1 ? page : null,
  });
}

export function registerTransactionPages(app: FastifyInstance, ctx: AppContext): void {
  app.get('/transactions', async (request, reply) => {
    const account = accountOf(request);
    const { filter, problems } = parseTransactionFilter(
      request.query as Record<string, unknown>,
      ctx.config.timeZone,
    );
    const { total, rows } = await listTransactions(ctx, account.id, filter);
    const pages = Math.max(1, Math.ceil(total / dashboardLimits.rowsPerPage));
    return renderPage(ctx, request, reply, 200, 'transactions', {
      title: 'Transacciones',
      section: 'transactions',
      filter,
      problems,
      total,
      rows,
      statuses: transactionStatuses,
      previous: filter.page > 1 ? pageQuery(filter, filter.page - 1) : null,
      next: filter.page < pages ? pageQuery(filter, filter.page + 1) : null,
      pages,
      filtered: filter.q !== '' || filter.status !== null || filter.from !== '' || filter.to !== '',
    });
  });

  app.get('/transactions/:id', async (request, reply) => {
    const account = accountOf(request);
    const { id } = request.params as { id: string };
    const row = await findTransaction(ctx, account.id, id);
    if (row === undefined)
      return renderMessage(
        ctx,
        request,
        reply,
        404,
        'No encontrado',
        'La página que buscas no existe o no pertenece a tu cuenta.',
      );
    const callbacks = await transactionCallbacks(ctx, account.id, row.payment_key);
    const refunds = await transactionRefunds(ctx, account.id, row.id);
    return renderPage(ctx, request, reply, 200, 'transaction', {
      title: `Transacción ${row.order}`,
      section: 'transactions',
      tx: row,
      timeline: timelineOf(row, callbacks, refunds, (minor) => formatMoney(minor, row.currency)),
      fee: row.fee_minor,
      net: row.fee_minor === null ? null : BigInt(row.amount_minor) - BigInt(row.fee_minor),
    });
  });
}
