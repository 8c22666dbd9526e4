// What Webpay Plus's processor (webpay-plus.ts) and its refunds (webpay-refund.ts) share: the keys a call is made
// with, what the processor needs from the app, and the fields of Transbank's answers Cobro reads.
import type { Logger } from 'pino';

export interface WebpayConfig {
  readonly commerceCode: string;
  readonly apiKey: string;
  /** Transbank's host: integration, production or a simulator's URL. */
  readonly environmentUrl: string;
}

/** The account's current keys, and the id they are kept under (webpay_keys), which its new sessions name. */
export interface WebpayAccountConfig extends WebpayConfig {
  readonly keysId: string | null;
}

export interface WebpayDeps {
  readonly timeoutMs: number;
  /** Where an answer that is not the sale's (decision 996) is told to the operator. */
  readonly logger: Pick<Logger, 'error'>;
  /** The Webpay token of an approved attempt (its attempt id), for refunds; null when unknown. */
  tokenOf(attemptId: string): Promise<string | null>;
  /** The keys that created the transaction of `token`, or null when its session names none (decision 996). */
  keysOfToken(token: string): Promise<WebpayConfig | null>;
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
