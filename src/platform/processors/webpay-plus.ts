// Transbank's Webpay Plus through the official `transbank-sdk` (issue 15): the payer types the card on Transbank's
// page, never on Cobro's. `start` creates the Webpay transaction, `commit` charges what the payer authorised and
// `status` reads Transbank's record when a commit's answer was lost (decision 150). Webpay Plus takes CLP only.
import { createHash } from 'node:crypto';
import { Options, WebpayPlus } from 'transbank-sdk';
import { minorAsJsonNumber } from '../money/json-number.ts';
import { unsignedMinorOf } from '../money/exact-minor.ts';
import { refundAtWebpay, type WebpayTransaction } from './webpay-refund.ts';
import type {
  WebpayAccountConfig,
  WebpayConfig,
  WebpayDeps,
  WebpayDetail,
} from './webpay-types.ts';
import {
  ProcessorUnavailableError,
  type ApprovedCharge,
  type ChargeOutcome,
  type DeclinedCharge,
  type PaymentProcessor,
  type RedirectSale,
  type RedirectStatus,
  type RefundRequest,
} from './processor.ts';

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

/**
 * A status that says the sale was charged (response code 0) and then given back, in part or whole, outside Cobro: the
 * commit whose answer was lost did charge the card (decision 1010).
 */
function refundedOutside(detail: WebpayDetail): boolean {
  return (
    detail.response_code === 0 &&
    (detail.status === 'PARTIALLY_NULLIFIED' ||
      detail.status === 'NULLIFIED' ||
      detail.status === 'REVERSED')
  );
}

/** The payer's words for a charge Transbank shows wholly given back: nothing is paid and nothing is kept. */
const givenBackMessage =
  'Webpay informa que el cargo de esta compra fue anulado y devuelto a tu tarjeta: la compra no se pagó.';

/**
 * The reference of the part of `token`'s charge given back outside Cobro (decision 1042): the same for every read of
 * the same Webpay transaction, so the payer's return and the recovery, or two recoveries, record it once (the
 * reference is the per-sale key of decision 1025). A digest, so Transbank's token is not shown to the merchant.
 */
function refundedOutsideReference(token: string): string {
  return `webpay-status-${createHash('sha256').update(token).digest('hex').slice(0, 16)}`;
}

/**
 * A status read after a lost commit for a charge refunded outside Cobro (decision 1010). Partly refunded
 * (`PARTIALLY_NULLIFIED`: a balance is still charged), the sale is paid, so the money Transbank holds is recorded,
 * and the part given back (amount less balance) goes with the approval for the recorder to book as a refund made
 * outside Cobro (decision 1042); a balance that is not between nothing and the amount leaves the operator to check
 * it. Wholly given back (`NULLIFIED`, `REVERSED`), nothing was kept, so the sale is not paid and the payer is told the
 * charge was returned. Another sale's charge is declined as decision 996 says.
 */
function afterRefundOutside(
  detail: WebpayDetail,
  sale: RedirectSale,
  token: string,
  logger: WebpayDeps['logger'],
): ChargeOutcome {
  const why = otherSale(detail, sale);
  if (why !== null) return outcomeFor({ ...detail, status: 'AUTHORIZED' }, sale, token, logger);
  const facts = {
    attempt: sale.attemptId,
    transaction: sale.transactionId,
    token,
    status: detail.status,
    balance: detail.balance,
  };
  if (detail.status === 'PARTIALLY_NULLIFIED') {
    const balanceMinor = unsignedMinorOf(detail.balance);
    if (balanceMinor !== null && balanceMinor > 0n && balanceMinor < sale.amountMinor)
      return {
        ...approved(detail),
        refundedOutside: {
          amountMinor: sale.amountMinor - balanceMinor,
          reference: refundedOutsideReference(token),
        },
      };
    logger.error(
      facts,
      `Webpay shows the lost commit charged and partly refunded outside Cobro, its balance unreadable: the sale is paid in full; check the refund at Transbank and record it with cobro refunds record-external ${sale.transactionId}`,
    );
    return approved(detail);
  }
  logger.error(
    facts,
    'Webpay shows the lost commit charged and wholly given back outside Cobro: not paid',
  );
  return { ...declined(detail), payerMessage: givenBackMessage };
}

export function webpayPlusProcessor(
  config: WebpayAccountConfig,
  deps: WebpayDeps,
): PaymentProcessor {
  const transactionUnder = (keys: WebpayConfig): WebpayTransaction =>
    new WebpayPlus.Transaction(
      new Options(keys.commerceCode, keys.apiKey, keys.environmentUrl, deps.timeoutMs),
    );
  const tx = transactionUnder(config);
  // A transaction is reached only under the keys that created it, whatever the account's keys are now (decision 996).
  const txFor = async (token: string): Promise<WebpayTransaction> => {
    const keys = await deps.keysOfToken(token);
    return keys === null ||
      (keys.commerceCode === config.commerceCode &&
        keys.apiKey === config.apiKey &&
        keys.environmentUrl === config.environmentUrl)
      ? tx
      : transactionUnder(keys);
  };
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
        return { token: answer.token, url: answer.url, holdsSale: false, keysId: config.keysId };
      },
      async commit(token, sale): Promise<ChargeOutcome> {
        const detail = (await (await txFor(token)).commit(token)) as WebpayDetail;
        // A status Cobro does not know is read as a lost answer: the caller asks the status (decision 996).
        assertKnownStatus(detail, 'commit');
        return outcomeFor(detail, sale, token, deps.logger);
      },
      async status(token, sale): Promise<RedirectStatus> {
        const detail = (await (await txFor(token)).status(token)) as WebpayDetail;
        assertKnownStatus(detail, 'status');
        if (detail.status === 'INITIALIZED') return { state: 'open' };
        const outcome = refundedOutside(detail)
          ? afterRefundOutside(detail, sale, token, deps.logger)
          : outcomeFor(detail, sale, token, deps.logger);
        return outcome.approved ? { state: 'approved', outcome } : { state: 'declined', outcome };
      },
    },
    refund: (request: RefundRequest) => refundAtWebpay(txFor, deps, request),
  };
}
