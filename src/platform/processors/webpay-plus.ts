// Transbank's Webpay Plus through the official `transbank-sdk` (issue 15): the payer types the card on Transbank's
// page, never on Cobro's. `start` creates the Webpay transaction, `commit` charges what the payer authorised and
// `status` reads Transbank's record when a commit's answer was lost (decision 150). Webpay Plus takes CLP only.
import { Options, WebpayPlus } from 'transbank-sdk';
import { minorAsJsonNumber } from '../money/json-number.ts';
import {
  ProcessorUnavailableError,
  type ApprovedCharge,
  type ChargeOutcome,
  type DeclinedCharge,
  type PaymentProcessor,
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
  readonly amount?: number;
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
        ? BigInt(detail.amount ?? 0)
        : detail.balance === undefined || detail.balance === null
          ? null
          : BigInt(detail.balance);
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
  try {
    const answer = (await tx.refund(token, minorAsJsonNumber(request.amountMinor))) as {
      type?: string;
      authorization_code?: string;
      response_code?: number;
    };
    if (answer.type === 'REVERSED')
      return { approved: true, refundCode: `reversed:${token.slice(0, 16)}` };
    if (answer.type === 'NULLIFIED' && answer.response_code === 0)
      return { approved: true, refundCode: String(answer.authorization_code) };
    return {
      approved: false,
      gatewayMessage: `Webpay refund answered ${answer.type ?? 'nothing'}`,
    };
  } catch (error) {
    // Transbank answered and refused: declined. No answer at all (timeout, network): it may have applied, so
    // the caller must not read it as refused.
    if (error instanceof Error && /status code [45]\d\d/.test(error.message))
      return { approved: false, gatewayMessage: transbankMessage(error) };
    throw error;
  }
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
      async commit(token): Promise<ChargeOutcome> {
        const detail = (await tx.commit(token)) as WebpayDetail;
        return isApproved(detail) ? approved(detail) : declined(detail);
      },
      async status(token): Promise<RedirectStatus> {
        const detail = (await tx.status(token)) as WebpayDetail;
        if (isApproved(detail)) return { state: 'approved', outcome: approved(detail) };
        if (detail.status === 'INITIALIZED') return { state: 'open' };
        return { state: 'declined', outcome: declined(detail) };
      },
    },
    refund: (request: RefundRequest) => refundAtWebpay(tx, deps, request),
  };
}
