// Refunds of Webpay Plus payments (webpay-plus.ts): Transbank's refund reverses or nullifies a charge, takes no
// idempotency key, and is sent under the keys that made the charge (decision 996).
import type { WebpayPlus } from 'transbank-sdk';
import { minorAsJsonNumber } from '../money/json-number.ts';
import { unsignedMinorOf } from '../money/exact-minor.ts';
import type { RefundOutcome, RefundRequest } from './processor.ts';
import type { WebpayDeps, WebpayDetail } from './webpay-types.ts';
import { refusedByTransbank } from './transbank-failure.ts';

export type WebpayTransaction = InstanceType<typeof WebpayPlus.Transaction>;

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
export async function refundAtWebpay(
  txFor: (token: string) => Promise<WebpayTransaction>,
  deps: WebpayDeps,
  request: RefundRequest,
): Promise<RefundOutcome> {
  const token = await deps.tokenOf(request.chargeIdempotencyKey);
  if (token === null) return { approved: false, gatewayMessage: 'unknown Webpay payment' };
  const tx = await txFor(token);
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
  let answer: TransbankRefundAnswer;
  try {
    answer = (await tx.refund(
      token,
      minorAsJsonNumber(request.amountMinor),
    )) as TransbankRefundAnswer;
  } catch (error) {
    // Transbank answered and refused: declined. A 5xx or no answer at all: it may have applied, so the caller must
    // not read it as refused; the retry reads the charge's balance first (decision 1225).
    if (refusedByTransbank(error))
      return { approved: false, gatewayMessage: transbankMessage(error) };
    throw error;
  }
  return transbankRefundOutcome(
    answer,
    request.amountMinor,
    async () => (await tx.status(token)) as WebpayDetail,
    {
      label: 'Webpay',
      code: token.slice(0, 16),
    },
  );
}

/** Transbank's answer to a refund, as Webpay Plus and Oneclick Mall both write it. */
export interface TransbankRefundAnswer {
  readonly type?: string;
  readonly authorization_code?: string;
  readonly response_code?: number;
  readonly nullified_amount?: unknown;
}

/**
 * What a Transbank refund answer decided, for Webpay Plus and Oneclick Mall alike (decisions 996, 989): a NULLIFIED
 * of exactly the amount asked is the refund; a REVERSED gives back the whole charge, so it is this refund only when
 * the charge's status read after it (`statusAfter`) shows it reversed for exactly this amount; any other amount is
 * left unresolved for the operator, never recorded as asked; any other answer is a refusal. `label` names the
 * product in the messages, `code` the charge in a reversal's refund code.
 */
export async function transbankRefundOutcome(
  answer: TransbankRefundAnswer,
  amountMinor: bigint,
  statusAfter: () => Promise<{ readonly status?: string; readonly amount?: unknown }>,
  names: { readonly label: string; readonly code: string },
): Promise<RefundOutcome> {
  if (answer.type === 'REVERSED') {
    // A status read that fails leaves it to the retry's reconcile.
    const after = await statusAfter();
    if (after.status === 'REVERSED' && unsignedMinorOf(after.amount) === amountMinor)
      return { approved: true, refundCode: `reversed:${names.code}` };
    return {
      approved: 'unresolved',
      reason: `${names.label} reversed the charge (${String(after.status)}, ${String(after.amount)}) when asked to refund ${amountMinor}`,
    };
  }
  if (answer.type === 'NULLIFIED' && answer.response_code === 0) {
    if (unsignedMinorOf(answer.nullified_amount) === amountMinor)
      return { approved: true, refundCode: String(answer.authorization_code) };
    // Transbank gave back another amount than asked: neither recorded as asked nor given back to the shop.
    return {
      approved: 'unresolved',
      reason: `${names.label} nullified ${String(answer.nullified_amount)} when asked to refund ${amountMinor}`,
    };
  }
  return {
    approved: false,
    gatewayMessage: `${names.label} refund answered ${answer.type ?? 'nothing'}`,
  };
}
