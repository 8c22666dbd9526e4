// Transbank's Webpay Plus through the official `transbank-sdk` (issue 15): the payer types the card on Transbank's
// page, never on Cobro's. `start` creates the Webpay transaction, `commit` charges what the payer authorised and
// `status` reads Transbank's record when a commit's answer was lost (decision 150). Webpay Plus takes CLP only.
import { Options, WebpayPlus } from 'transbank-sdk';
import type { Logger } from 'pino';
import { minorAsJsonNumber } from '../money/json-number.ts';
import { unsignedMinorOf } from '../money/exact-minor.ts';
import {
  ProcessorUnavailableError,
  type ApprovedCharge,
  type ChargeOutcome,
  type DeclinedCharge,
  type PaymentProcessor,
  type RedirectSale,
  type RedirectStatus,
  type RefundOutcome,
  type RefundRequest,
} from './processor.ts';

export interface WebpayConfig {
  readonly commerceCode: string;
  readonly apiKey: string;
  /** Transbank's host: integration, production or a simulator's URL. */
  readonly environmentUrl: string;
}

export interface WebpayDeps {
  readonly timeoutMs: number;
  /** Where an answer that is not the sale's (decision 996) is told to the operator. */
  readonly logger: Pick<Logger, 'error'>;
  /** The Webpay token of an approved attempt (its attempt id), for refunds; null when unknown. */
  tokenOf(attemptId: string): Promise<string | null>;
}

/** The fields of Transbank's commit and status answers that Cobro reads. */
export interface WebpayDetail {
  readonly status?: string;
  readonly response_code?: number | null;
  readonly authorization_code?: string | null;
  readonly payment_type_code?: string | null;
  readonly installments_number?: number | null;
  readonly card_detail?: { readonly card_number?: string | null } | null;
  /** What is left of the charge after its nullifications (status of a NULLIFIED or PARTIALLY_NULLIFIED one). */
  readonly balance?: number | null;
  /** What was charged: a JSON number, or a string of digits from a client that keeps big numbers (read exactly). */
  readonly amount?: unknown;
  readonly buy_order?: unknown;
  readonly session_id?: unknown;
}

const rejectedMessage = 'Rechazo de transacción.';

function last4(detail: WebpayDetail): string | null {
  const digits = (detail.card_detail?.card_number ?? '').replace(/\D/g, '');
  return digits.length >= 4 ? digits.slice(-4) : null;
}

function approved(detail: WebpayDetail): ApprovedCharge {
  return {
    approved: true,
    authorizationCode: String(detail.authorization_code ?? ''),
    cardType: detail.payment_type_code ?? null,
    cardBrand: null,
    cardLast4: last4(detail),
    cardToken: null,
    installments: Number(detail.installments_number ?? 0),
  };
}

function declined(detail: WebpayDetail): DeclinedCharge {
  return {
    approved: false,
    payerMessage: `Webpay rechazó el pago (código ${detail.response_code ?? 'sin código'}).`,
    gatewayMessage: rejectedMessage,
    cardBrand: null,
    cardLast4: last4(detail),
  };
}

function isApproved(detail: WebpayDetail): boolean {
  return (
    detail.response_code === 0 && (detail.status === 'AUTHORIZED' || detail.status === 'CAPTURED')
  );
}

/** The statuses Transbank documents for a Webpay Plus transaction; any other word decides nothing (decision 996). */
const knownStatuses: ReadonlySet<string> = new Set([
  'INITIALIZED',
  'AUTHORIZED',
  'CAPTURED',
  'FAILED',
  'REVERSED',
  'NULLIFIED',
  'PARTIALLY_NULLIFIED',
]);

function assertKnownStatus(detail: WebpayDetail, call: string): void {
  if (typeof detail.status !== 'string' || !knownStatuses.has(detail.status))
    throw new Error(`Webpay's ${call} answered status ${String(detail.status)}: undecided`);
}

/**
 * Why an approval is not this sale's payment (another amount, buy order or session id than Cobro created the
 * transaction with), or null when it is (decision 996, as decision 965 for Fintoc). An amount is read exactly.
 */
function otherSale(detail: WebpayDetail, sale: RedirectSale): string | null {
  const amountMinor = unsignedMinorOf(detail.amount);
  if (amountMinor !== sale.amountMinor)
    return `amount ${String(detail.amount)} is not the sale's ${sale.amountMinor}`;
  if (detail.buy_order !== sale.attemptId)
    return `buy order ${String(detail.buy_order)} is not the attempt ${sale.attemptId}`;
  if (detail.session_id !== sale.transactionId)
    return `session id ${String(detail.session_id)} is not the sale ${sale.transactionId}`;
  return null;
}

/** The payer's words for an approval that is not the sale's: nothing is paid, the shop gives the money back. */
const otherSaleMessage =
  'Webpay informó un cargo que no corresponde a esta compra (otro monto u otra orden): la compra no se pagó; el comercio te devolverá lo cobrado.';

/** The charge an answer decides for `sale`: an approval only of the sale's amount, buy order and session id. */
function outcomeFor(
  detail: WebpayDetail,
  sale: RedirectSale,
  token: string,
  logger: WebpayDeps['logger'],
): ChargeOutcome {
  if (!isApproved(detail)) return declined(detail);
  const why = otherSale(detail, sale);
  if (why === null) return approved(detail);
  logger.error(
    { attempt: sale.attemptId, transaction: sale.transactionId, token, why },
    'Webpay approved a charge that is not the sale: declined; refund it at Transbank by hand',
  );
  return { ...declined(detail), payerMessage: otherSaleMessage };
}

/** The SDK's TransbankError reads "<axios error>\n<Transbank's error_message>\n": Transbank's own words. */
export function transbankMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.trim().split('\n').at(-1) ?? text;
}

/**
 * Webpay's refund takes no idempotency key, so a retry after a lost answer reads the charge's balance first
 * (issue 14): true when this refund is already in it, false when it is not; any other balance (another refund of
 * the charge in flight) throws, so nothing is decided and the dispatch asks again later.
 */
export function refundAlreadyApplied(
  detail: WebpayDetail,
  amountMinor: bigint,
  retry: NonNullable<RefundRequest['retry']>,
): boolean {
  const before = retry.chargeAmountMinor - retry.refundedBeforeMinor;
  const balance =
    detail.status === 'REVERSED'
      ? 0n
      : detail.status === 'AUTHORIZED'
        ? unsignedMinorOf(detail.amount)
        : unsignedMinorOf(detail.balance);
  if (balance === before - amountMinor) return true;
  if (balance === before) return false;
  throw new Error(
    `Webpay holds ${balance ?? 'no balance'} on this charge, neither ${before} nor ${before - amountMinor}: the refund stays undecided`,
  );
}

/** PaymentProcessor.refund on Webpay Plus: a retry first reconciled with the charge's balance, then reversed or nullified. */
async function refundAtWebpay(
  tx: InstanceType<typeof WebpayPlus.Transaction>,
  deps: WebpayDeps,
  request: RefundRequest,
): Promise<RefundOutcome> {
  const token = await deps.tokenOf(request.chargeIdempotencyKey);
  if (token === null) return { approved: false, gatewayMessage: 'unknown Webpay payment' };
  if (
    request.retry !== undefined &&
    (await refundAlreadyApplied(
      (await tx.status(token)) as WebpayDetail,
      request.amountMinor,
      request.retry,
    ))
  ) {
    return { approved: true, refundCode: `reconciled:${token.slice(0, 16)}` };
  }
  let answer: {
    type?: string;
    authorization_code?: string;
    response_code?: number;
    nullified_amount?: unknown;
  };
  try {
    answer = (await tx.refund(token, minorAsJsonNumber(request.amountMinor))) as typeof answer;
  } catch (error) {
    // Transbank answered and refused: declined. No answer at all (timeout, network): it may have applied, so
    // the caller must not read it as refused.
    if (error instanceof Error && /status code [45]\d\d/.test(error.message))
      return { approved: false, gatewayMessage: transbankMessage(error) };
    throw error;
  }
  if (answer.type === 'REVERSED') {
    // A reversal gives back the whole charge: it is this refund only when this refund is the whole charge, which
    // the charge's own record says (decision 996). A status read that fails leaves it to the retry's reconcile.
    const after = (await tx.status(token)) as WebpayDetail;
    if (after.status === 'REVERSED' && unsignedMinorOf(after.amount) === request.amountMinor)
      return { approved: true, refundCode: `reversed:${token.slice(0, 16)}` };
    return {
      approved: 'unresolved',
      reason: `Webpay reversed the charge (${String(after.status)}, ${String(after.amount)}) when asked to refund ${request.amountMinor}`,
    };
  }
  if (answer.type === 'NULLIFIED' && answer.response_code === 0) {
    if (unsignedMinorOf(answer.nullified_amount) === request.amountMinor)
      return { approved: true, refundCode: String(answer.authorization_code) };
    // Transbank gave back another amount than asked: neither recorded as asked nor given back to the shop.
    return {
      approved: 'unresolved',
      reason: `Webpay nullified ${String(answer.nullified_amount)} when asked to refund ${request.amountMinor}`,
    };
  }
  return {
    approved: false,
    gatewayMessage: `Webpay refund answered ${answer.type ?? 'nothing'}`,
  };
}

export function webpayPlusProcessor(config: WebpayConfig, deps: WebpayDeps): PaymentProcessor {
  const tx = new WebpayPlus.Transaction(
    new Options(config.commerceCode, config.apiKey, config.environmentUrl, deps.timeoutMs),
  );
  const noCardData = (): DeclinedCharge => ({
    approved: false,
    payerMessage: 'Con Webpay Plus la tarjeta se ingresa en la página de Transbank.',
    gatewayMessage: rejectedMessage,
    cardBrand: null,
    cardLast4: null,
  });
  return {
    name: 'webpay_plus',
    supports: (kind, currency) => kind === 'card' && (currency === undefined || currency === 'CLP'),
    // Card data never reaches Cobro under Webpay Plus, and it keeps no card for later (that is Oneclick).
    charge: async () => noCardData(),
    chargeStoredCard: async () => noCardData(),
    redirect: {
      async start(request) {
        let answer: { token: string; url: string };
        try {
          answer = (await tx.create(
            request.attemptId,
            request.sessionId,
            minorAsJsonNumber(request.amountMinor),
            request.returnUrl,
          )) as { token: string; url: string };
        } catch (error) {
          // A create that failed created nothing a payer could pay (no token): whatever the cause (Transbank down,
          // a timeout, a 5xx, refused keys), the payer may only try again or go back (issue 32).
          throw new ProcessorUnavailableError('Webpay Plus', error);
        }
        // Nothing is charged before Cobro's commit: the session holds nothing once the hold runs out.
        return { token: answer.token, url: answer.url, holdsSale: false };
      },
      async commit(token, sale): Promise<ChargeOutcome> {
        const detail = (await tx.commit(token)) as WebpayDetail;
        // A status Cobro does not know is read as a lost answer: the caller asks the status (decision 996).
        assertKnownStatus(detail, 'commit');
        return outcomeFor(detail, sale, token, deps.logger);
      },
      async status(token, sale): Promise<RedirectStatus> {
        const detail = (await tx.status(token)) as WebpayDetail;
        assertKnownStatus(detail, 'status');
        if (detail.status === 'INITIALIZED') return { state: 'open' };
        const outcome = outcomeFor(detail, sale, token, deps.logger);
        return outcome.approved ? { state: 'approved', outcome } : { state: 'declined', outcome };
      },
    },
    refund: (request: RefundRequest) => refundAtWebpay(tx, deps, request),
  };
}
