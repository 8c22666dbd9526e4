// Fintoc's webhook (issue 34): POST /webhooks/fintoc/{account id}, one URL per account because each account has
// its own webhook secret. The raw body is verified with the client's WebhookSignature (`Fintoc-Signature`); a
// bad or missing signature changes nothing (401). Each event id is applied once per account (fintoc_events: Fintoc
// sends one event to every endpoint of its organisation, and two accounts may share Fintoc keys, decision 965); the
// effects are idempotent besides, so an event delivered twice, or late after a newer one, changes nothing more.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import type { Timestamp } from '../../platform/db/types.ts';
import { rawBodyOf } from '../../platform/http/json-body.ts';
import { fintocAccount } from '../../platform/processors/fintoc-settings.ts';
import {
  declined,
  intentApproval,
  intentPending,
  sessionStatus,
} from '../../platform/processors/fintoc-processor.ts';
import { fintocLimits } from '../../limits/index.ts';
import { fintocSession, settleFintocSession } from './sale-settle.ts';
import { applyTransferResult, transferVerdict } from './transfer-result.ts';
import { markPending } from './pending-payment.ts';
import { onRefund } from './refund-event.ts';

interface FintocEventTable {
  event_id: string;
  account_id: string;
  type: string;
  received_at: Timestamp;
}

declare module '../../platform/db/types.ts' {
  interface Database {
    fintoc_events: FintocEventTable;
  }
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null ? (v as Obj) : {});

async function onSession(ctx: AppContext, accountId: string, data: Obj): Promise<string> {
  const session = await fintocSession(ctx, { token: String(data.id ?? '') });
  if (session === undefined || session.account_id !== accountId) return 'unknown_session';
  // Finished with its payment pending at the bank: undecided, never a decline (decision 745).
  if (intentPending(data)) return markPending(ctx, session);
  const status = sessionStatus(data);
  if (status.state === 'open') return 'still_open';
  const r = await settleFintocSession(ctx, session, status.outcome, data, null);
  return r.kind;
}

/** Fintoc's payment_intent.* events that end a payment without money (its Types of events). */
const intentFailures = new Set(['failed', 'rejected', 'expired']);

async function onPaymentIntent(
  ctx: AppContext,
  accountId: string,
  type: string,
  data: Obj,
): Promise<string> {
  const attemptId = obj(data.metadata).cobro_attempt_id;
  if (typeof attemptId !== 'string') return 'not_ours';
  const session = await fintocSession(ctx, { attemptId });
  if (session === undefined || session.account_id !== accountId) return 'unknown_session';
  const what = type.slice('payment_intent.'.length);
  // payment_intent.pending: the bank has not confirmed the transfer; a later event says how it ended (decision 745).
  if (what === 'pending') return markPending(ctx, session);
  if (what !== 'succeeded' && !intentFailures.has(what)) return 'ignored';
  const outcome =
    what === 'succeeded'
      ? intentApproval(data)
      : declined(what === 'expired' ? 'expired' : 'failed');
  return (await settleFintocSession(ctx, session, outcome, data, null)).kind;
}

async function onTransfer(
  ctx: AppContext,
  accountId: string,
  type: string,
  data: Obj,
): Promise<string> {
  const transferId = typeof data.id === 'string' ? data.id : null;
  let payoutId = obj(data.metadata).cobro_payout_id;
  if (typeof payoutId !== 'string' && transferId !== null) {
    const row = await ctx.db
      .selectFrom('fintoc_transfers')
      .select('payout_id')
      .where('transfer_id', '=', transferId)
      .executeTakeFirst();
    payoutId = row?.payout_id;
  }
  if (typeof payoutId !== 'string') return 'not_ours';
  const owner = await ctx.db
    .selectFrom('fintoc_transfers')
    .select('account_id')
    .where('payout_id', '=', payoutId)
    .executeTakeFirst();
  if (owner?.account_id !== accountId) return 'unknown_payout';
  const suffix = type.slice('transfer.outbound.'.length);
  const verdict = transferVerdict({ ...data, status: data.status ?? suffix });
  return applyTransferResult(ctx, payoutId, transferId, verdict, data);
}

async function apply(ctx: AppContext, accountId: string, event: Obj): Promise<string> {
  const type = String(event.type ?? '');
  const data = obj(event.data);
  if (type === 'checkout_session.finished' || type === 'checkout_session.expired')
    return onSession(ctx, accountId, { ...data, status: data.status ?? type.split('.')[1] });
  if (type.startsWith('payment_intent.')) return onPaymentIntent(ctx, accountId, type, data);
  if (type.startsWith('transfer.outbound.')) return onTransfer(ctx, accountId, type, data);
  if (type.startsWith('refund.')) return onRefund(ctx, accountId, type, data);
  return 'ignored';
}

const failed = (type: string, message: string) => ({
  status: 'failed',
  type,
  message_error: message,
});

export async function fintocWebhookRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.post<{ Params: { accountId: string } }>(
    '/webhooks/fintoc/:accountId',
    {
      config: { auth: 'none' },
      bodyLimit: fintocLimits.webhookBodyBytesMax,
      schema: { hide: true },
    },
    async (request, reply) => {
      const accountId = request.params.accountId.slice(0, 64);
      const account =
        ctx.config.mode === 'production' ? await fintocAccount(ctx, ctx.db, accountId) : null;
      if (account === null)
        return reply.code(404).send(failed('not_found', 'no Fintoc webhook for this account'));
      const header = request.headers['fintoc-signature'];
      const raw = rawBodyOf(request);
      const { fintocSignatureValid } = await import('../../platform/processors/fintoc-client.ts');
      if (
        !fintocSignatureValid(
          raw,
          typeof header === 'string' ? header : undefined,
          account.webhookSecret,
        )
      ) {
        request.log.warn({ account: accountId }, 'Fintoc webhook with a bad signature refused');
        return reply
          .code(401)
          .send(failed('invalid_signature', 'the Fintoc-Signature header does not sign this body'));
      }
      const event = obj(request.body);
      const eventId = String(event.id ?? '');
      if (eventId === '')
        return reply.code(400).send(failed('invalid_event', 'the event has no id'));
      const seen = await ctx.db
        .selectFrom('fintoc_events')
        .select('event_id')
        .where('account_id', '=', accountId)
        .where('event_id', '=', eventId)
        .executeTakeFirst();
      if (seen !== undefined) return { received: true, result: 'duplicate' };
      const result = await apply(ctx, accountId, event);
      await ctx.db
        .insertInto('fintoc_events')
        .values({
          event_id: eventId,
          account_id: accountId,
          type: String(event.type ?? ''),
          received_at: ctx.clock.now(),
        })
        .onConflict((oc) => oc.columns(['account_id', 'event_id']).doNothing())
        .execute();
      request.log.info(
        { account: accountId, event: eventId, type: event.type, result },
        'Fintoc webhook applied',
      );
      return { received: true, result };
    },
  );
}
