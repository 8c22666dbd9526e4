// Refunds of Webpay Plus payments (webpay-plus.ts): Transbank's refund reverses or nullifies a charge, takes no
// idempotency key, and is sent under the keys that made the charge (decision 996).
import type { WebpayPlus } from 'transbank-sdk';
import { minorAsJsonNumber } from '../money/json-number.ts';
import { unsignedMinorOf } from '../money/exact-minor.ts';
import type { RefundOutcome, RefundRequest } from './processor.ts';
import type { WebpayDeps, WebpayDetail } from './webpay-types.ts';

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
