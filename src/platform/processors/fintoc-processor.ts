// Bank transfers through Fintoc (issue 34): the payer pays on Fintoc's hosted page (a checkout session's
// `redirect_url`, reached by a plain link: no JavaScript and no widget on Cobro's pages) and comes back to
// Cobro's return URL; Fintoc's webhook, verified with the client's WebhookSignature, settles the sale
// (src/modules/fintoc/). Cards are not Fintoc's: an account's card acquirer stays whatever it is (decision 511).
import { unsignedMinorOf } from '../money/exact-minor.ts';
import { minorAsJsonNumber } from '../money/json-number.ts';
import { fintocLimits } from '../../limits/index.ts';
import type { FintocAccount } from './fintoc-settings.ts';
import type {
  ChargeOutcome,
  PaymentProcessor,
  RedirectStatus,
  RefundOutcome,
  RefundRequest,
} from './processor.ts';
import { abortedByPayer, ProcessorUnavailableError } from './processor.ts';

export const fintocProcessorName = 'fintoc';

const notByFintoc = async (): Promise<never> => {
  throw new Error('Fintoc takes bank transfers only');
};

/** The payment intent statuses that end a payment (Fintoc's Payment Intent object): paid, or no money moved. */
const intentFinalStatuses = new Set(['succeeded', 'failed', 'rejected', 'expired', 'canceled']);

function intentStatusOf(session: Record<string, unknown>): string {
  const resource = (session.payment_resource ?? {}) as Record<string, unknown>;
  const intent = (resource.payment_intent ?? {}) as Record<string, unknown>;
  return String(intent.status ?? session.payment_status ?? '');
}

/**
 * What Fintoc says was paid, from a payment intent or a checkout session (its intent's, else its own): the amount as
 * Fintoc wrote it (an integer of pesos; never trusted as one) and the currency (decision 965).
 */
export function paidOf(object: Record<string, unknown>): { amount: unknown; currency: unknown } {
  const resource = (object.payment_resource ?? {}) as Record<string, unknown>;
  const intent = (resource.payment_intent ?? null) as Record<string, unknown> | null;
  const from = intent !== null && intent.amount !== undefined ? intent : object;
  return { amount: from.amount, currency: from.currency };
}

/**
 * Whether the payer finished at Fintoc and Fintoc has not decided the payment: its intent `pending` (the bank has not
 * confirmed the transfer; Fintoc validates it for up to 10 days and then sends payment_intent.succeeded or .failed)
 * or any other status that is not final. Such a session is undecided, never a decline (decision 745).
 */
export function intentPending(session: Record<string, unknown>): boolean {
  const intentStatus = intentStatusOf(session);
  return (
    String(session.status ?? '') === 'finished' &&
    intentStatus !== '' &&
    !intentFinalStatuses.has(intentStatus)
  );
}

/**
 * A payment intent Fintoc reports `succeeded` as the approval Cobro records: the intent's id is the sale's
 * authorization code. The webhook's `payment_intent.succeeded` and the read of a late success (decision 1215) both.
 */
export function intentApproval(
  intent: Record<string, unknown>,
): ChargeOutcome & { approved: true } {
  return {
    approved: true,
    authorizationCode: String(intent.id),
    cardType: null,
    cardBrand: null,
    cardLast4: null,
    cardToken: null,
  };
}

/** A checkout session's outcome as Cobro reads it: paid, failed (or expired), or still open (pending included). */
export function sessionStatus(session: Record<string, unknown>): RedirectStatus {
  const status = String(session.status ?? '');
  const resource = (session.payment_resource ?? {}) as Record<string, unknown>;
  const intent = (resource.payment_intent ?? {}) as Record<string, unknown>;
  const intentStatus = intentStatusOf(session);
  if (status === 'finished' && intentStatus === 'succeeded')
    return {
      state: 'approved',
      outcome: {
        approved: true,
        authorizationCode: String(intent.id ?? session.id),
        cardType: null,
        cardBrand: null,
        cardLast4: null,
        cardToken: null,
      },
    };
  if (intentPending(session)) return { state: 'open' };
  if (status === 'expired' || (status === 'finished' && intentStatus !== ''))
    return {
      state: 'declined',
      outcome: declined(status === 'expired' || intentStatus === 'expired' ? 'expired' : 'failed'),
    };
  return { state: 'open' };
}

/**
 * How Cobro reads a Fintoc refund's status (its Refund object): only `succeeded` gives the money back, and only as
 * the refund asked when Fintoc's `amount`, read exactly, is `askedMinor`; another amount is left unresolved for the
 * operator, neither recorded as asked nor given back to the shop (decision 989, as 992 for transfers).
 */
export function refundOutcome(refund: Record<string, unknown>, askedMinor: bigint): RefundOutcome {
  const status = String(refund.status ?? '');
  if (status === 'succeeded') {
    if (unsignedMinorOf(refund.amount) === askedMinor)
      return { approved: true, refundCode: String(refund.id) };
    return {
      approved: 'unresolved',
      reason: `Fintoc refund ${String(refund.id)} succeeded for ${String(refund.amount)} when ${askedMinor} was asked`,
    };
  }
  if (status === 'failed' || status === 'canceled') {
    const why = typeof refund.failure_code === 'string' ? ` (${refund.failure_code})` : '';
    return { approved: false, gatewayMessage: `Fintoc refund ${status}${why}` };
  }
  // `created`, `in_progress`, or a status Fintoc adds later: not finished, asked about again.
  return { approved: 'in_progress', refundCode: String(refund.id) };
}

export function declined(
  why: 'expired' | 'failed' | 'cancelled' | 'mismatch',
): ChargeOutcome & { approved: false } {
  const payerMessage = {
    expired: 'El pago en Fintoc expiró: no se realizó ningún cobro.',
    failed: 'Tu banco no completó la transferencia: no se realizó ningún cobro.',
    cancelled: 'Anulaste el pago en Fintoc: no se realizó ningún cobro.',
    // Money may have moved, for another amount than the sale's (decision 965): the shop gives it back.
    mismatch:
      'Fintoc informó un pago por un monto distinto al de la compra: la compra no se pagó; el comercio te devolverá lo transferido.',
  }[why];
  return {
    approved: false,
    payerMessage,
    gatewayMessage:
      why === 'failed' || why === 'mismatch' ? 'Rechazo de transacción.' : abortedByPayer,
    cardBrand: null,
    cardLast4: null,
  };
}

/** An instant as Fintoc writes its times (ISO 8601 in UTC, whole seconds), rounded down: never after `at`. */
function fintocTime(at: Date): string {
  return new Date(Math.floor(at.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

export interface FintocProcessorOptions {
  /** Cobro's return URL; `?attempt=` and `&cancelled=1` are added per attempt. */
  readonly returnUrl: string;
  /** The service clock: a refund's resend window runs on it (decision 785). */
  readonly now: () => Date;
}

/**
 * The refund Fintoc made for the nullification `key`, if its list shows one: Fintoc has no lookup by idempotency key,
 * so the refunds created since the first dispatch (less fintocLimits.refundLookupSlackMs, at most refundLookupMax)
 * are read and the one whose metadata names the nullification is taken (decision 785).
 */
async function lookUpRefund(
  api: FintocAccount['api'],
  key: string,
  firstSentAt: Date,
): Promise<Record<string, unknown> | null> {
  const since = new Date(firstSentAt.getTime() - fintocLimits.refundLookupSlackMs);
  const refunds = await api.listRefunds(since.toISOString(), fintocLimits.refundLookupMax);
  return (
    refunds.find(
      (r) => (r.metadata as Record<string, unknown> | undefined)?.cobro_nullification_id === key,
    ) ?? null
  );
}

export function fintocProcessor(
  account: FintocAccount,
  o: FintocProcessorOptions,
): PaymentProcessor {
  const { api } = account;
  return {
    name: fintocProcessorName,
    supports: (kind, currency) =>
      kind === 'bank_transfer' && (currency === undefined || currency === 'CLP'),
    charge: notByFintoc,
    chargeStoredCard: notByFintoc,
    redirect: {
      async start(r) {
        const back = `${o.returnUrl}?attempt=${encodeURIComponent(r.attemptId)}`;
        let session;
        try {
          session = await api.createCheckoutSession(
            {
              amount: minorAsJsonNumber(r.amountMinor),
              currency: r.currency,
              // The session closes at Fintoc when Cobro's hold on the sale ends (decision 725): Fintoc's own
              // default is a day, in which a payment could come for a sale Cobro no longer holds.
              expires_at: fintocTime(r.holdEndsAt),
              success_url: back,
              cancel_url: `${back}&cancelled=1`,
              metadata: { cobro_attempt_id: r.attemptId, cobro_transaction_id: r.sessionId },
            },
            r.attemptId,
          );
        } catch (error) {
          throw new ProcessorUnavailableError('Fintoc', error);
        }
        // The payer may pay until Fintoc closes the session, so it holds its sale until then (decision 665).
        return { token: String(session.id), url: String(session.redirect_url), holdsSale: true };
      },
      async commit(token) {
        const s = sessionStatus(await api.getCheckoutSession(token));
        if (s.state === 'open') throw new Error(`Fintoc session ${token} is not finished`);
        return s.outcome;
      },
      status: async (token) => sessionStatus(await api.getCheckoutSession(token)),
    },
    refund: (r: RefundRequest) => fintocRefund(api, o, r),
  };
}

/** A refund of a Fintoc payment intent: read when Fintoc took it earlier, looked up after a lost answer, else created. */
async function fintocRefund(
  api: FintocAccount['api'],
  o: FintocProcessorOptions,
  r: RefundRequest,
): Promise<RefundOutcome> {
  // A refund Fintoc took earlier is read, not asked again: its idempotency key would only replay the first answer.
  if (r.inProgressRefundCode !== undefined)
    return refundOutcome(await api.getRefund(r.inProgressRefundCode), r.amountMinor);
  // An earlier dispatch's answer was lost (decision 785): Fintoc may have made the refund, and may have dropped
  // the key since (24 hours), after which the same key makes a new refund. Looked up first, sent again only
  // while within the limits; a failing list is a lost answer within them (tried again later), unresolved past.
  if (r.retry !== undefined) {
    const { tryNumber, firstSentAt } = r.retry;
    const withinLimits =
      tryNumber - 1 <= fintocLimits.refundRetriesMax &&
      o.now().getTime() - firstSentAt.getTime() <= fintocLimits.refundResendWindowMs;
    let found: Record<string, unknown> | null;
    try {
      found = await lookUpRefund(api, r.idempotencyKey, firstSentAt);
    } catch (error) {
      if (withinLimits) throw error;
      return { approved: 'unresolved', reason: 'Fintoc refund lookups failed past the limits' };
    }
    if (found !== null) return refundOutcome(found, r.amountMinor);
    if (!withinLimits)
      return {
        approved: 'unresolved',
        reason: `Fintoc shows no refund after ${tryNumber - 1} tries since ${firstSentAt.toISOString()}: not sent again`,
      };
  }
  // Fintoc refunds a payment intent (its id is the sale's authorization code), once per idempotency key.
  try {
    return refundOutcome(
      await api.createRefund(
        {
          resource_type: 'payment_intent',
          resource_id: r.authorizationCode,
          amount: minorAsJsonNumber(r.amountMinor),
          metadata: { cobro_nullification_id: r.idempotencyKey },
        },
        r.idempotencyKey,
      ),
      r.amountMinor,
    );
  } catch (error) {
    // Fintoc answered and refused it (an invalid request: more than the intent's refundable amount, say): nothing
    // is refunded and asking again gets the same answer, so it is a refusal, as Webpay and Oneclick read theirs.
    const { fintocRefused } = await import('./fintoc-client.ts');
    // A resend's refusal proves nothing (the first request may have made the refund and used up the intent's
    // refundable amount): left unresolved, never given back (decision 785, as decision 750 for transfers).
    if (fintocRefused(error) && r.retry !== undefined)
      return { approved: 'unresolved', reason: `Fintoc refused the resend: ${error.message}` };
    if (fintocRefused(error))
      return { approved: false, gatewayMessage: `Fintoc refused the refund: ${error.message}` };
    throw error;
  }
}
