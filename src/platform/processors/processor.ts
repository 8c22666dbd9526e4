// The port every payment processor implements (STYLE rule 12): the sandbox now, real acquirers and bank-transfer
// providers later. Card data travels only through `charge` and is never persisted by the caller: a processor
// answers with a token, a brand and the last four digits.
type ChargeKind = 'card' | 'bank_transfer';

export interface CardDetails {
  /** Digits only, already Luhn-checked by the checkout. */
  readonly number: string;
  readonly expiryMonth: number;
  readonly expiryYear: number;
  readonly cvv: string;
}

interface ChargeBase {
  /** One per payment attempt: a processor that supports idempotency must charge at most once per key. */
  readonly idempotencyKey: string;
  readonly amountMinor: bigint;
  readonly currency: string;
  readonly description: string;
}

export interface CardCharge extends ChargeBase {
  readonly kind: 'card';
  readonly card: CardDetails;
  readonly installments: number;
}

interface BankTransferCharge extends ChargeBase {
  readonly kind: 'bank_transfer';
  /** Payer's RUT, normalised to digits plus check digit (`111111111`). */
  readonly rut: string;
  readonly password: string;
  readonly bankCode: string | null;
}

export type ChargeRequest = CardCharge | BankTransferCharge;

/**
 * The gateway message of a payment the payer abandoned on the acquirer's page: English, like the API's other
 * gateway texts (reference §1 `gateway_response.message`); the payer's page says it in Spanish (payerReason).
 */
export const abortedByPayer = 'aborted by payer';

export interface ApprovedCharge {
  readonly approved: true;
  readonly authorizationCode: string;
  /** Transbank-style payment type: VN credit, VC instalments, VD debit, VP prepaid; null for transfers. */
  readonly cardType: string | null;
  readonly cardBrand: string | null;
  readonly cardLast4: string | null;
  readonly cardToken: string | null;
  /** The instalments the acquirer recorded, where the payer chose them on its page (Webpay Plus). */
  readonly installments?: number;
  /**
   * Part of the charge the acquirer's status shows already given back outside Cobro (Webpay's `PARTIALLY_NULLIFIED`
   * after a lost commit, decision 1042): recorded as a refund made outside Cobro once the sale is paid. `reference`
   * is derived from the acquirer's transaction alone, so a second record of it records nothing.
   */
  readonly refundedOutside?: { readonly amountMinor: bigint; readonly reference: string };
}

export interface DeclinedCharge {
  readonly approved: false;
  /** Shown to the payer, in Spanish. */
  readonly payerMessage: string;
  /** One of the reference's gateway_response messages (§1.2). */
  readonly gatewayMessage: string;
  readonly cardBrand: string | null;
  readonly cardLast4: string | null;
}

export type ChargeOutcome = ApprovedCharge | DeclinedCharge;

/** Gives back (part of) an approved charge: refunds (issue 11). */
export interface RefundRequest {
  /** The original charge's idempotency key (its payment attempt) and the authorization the processor gave it. */
  readonly chargeIdempotencyKey: string;
  readonly authorizationCode: string;
  /** The refunded payment's id: how Oneclick finds its charge (its buy order, issue 33). */
  readonly transactionId?: string;
  /** One per refund: a processor that supports idempotency must refund at most once per key. */
  readonly idempotencyKey: string;
  readonly amountMinor: bigint;
  readonly currency: string;
  /**
   * Set when an earlier dispatch of this refund may have reached the processor and its answer was lost. A processor
   * without idempotency keys (Webpay) reads its own record of the charge first: the refund is answered as applied
   * when the charge's balance is already `chargeAmountMinor - refundedBeforeMinor - amountMinor`, sent when it is
   * still `chargeAmountMinor - refundedBeforeMinor`, and left undecided (it throws) otherwise. A processor whose keys
   * expire (Fintoc keeps one about 24 hours) looks the refund up first and resends only within its own limits, by
   * `tryNumber` (2 for the first retry) and `firstSentAt` (the first dispatch, on the service clock; decision 785).
   */
  readonly retry?: {
    readonly chargeAmountMinor: bigint;
    readonly refundedBeforeMinor: bigint;
    readonly tryNumber: number;
    readonly firstSentAt: Date;
  };
  /**
   * The processor's id of this refund when it answered it as taken but not finished (`in_progress` below): the
   * processor says how that refund stands now instead of refunding again (decision 745).
   */
  readonly inProgressRefundCode?: string;
}

export type RefundOutcome =
  | { readonly approved: true; readonly refundCode: string }
  | { readonly approved: false; readonly gatewayMessage: string }
  /**
   * Taken, not finished (Fintoc's `created` and `in_progress`; decision 745): the money is on its way back or may yet
   * fail to be. The refund stays `complete` and is asked about again with `inProgressRefundCode`.
   */
  | { readonly approved: 'in_progress'; readonly refundCode: string }
  /**
   * The processor cannot tell whether an earlier dispatch made the refund and will not send it again (decision 785:
   * a Fintoc refund past its resend limits, or a refused resend): it stays `complete`, no longer asked about, for the
   * processor's webhook or the operator.
   */
  | { readonly approved: 'unresolved'; readonly reason: string };

/** Charges a card the payer let us keep: the token an earlier approved charge answered with (subscriptions). */
export interface StoredCardCharge extends ChargeBase {
  readonly cardToken: string;
  readonly installments: number;
  /**
   * Asked right before the processor sends a charge it has not sent before, or sends again one it has proved it never
   * received (Oneclick's status answers 404 for its buy order): why the charge is no longer wanted (its subscription
   * ended or its card was deleted since the claim), which declines it unsent, or null to send it (decisions 750, 825).
   */
  readonly unsentReason?: () => Promise<string | null>;
  /**
   * Whether an earlier claim of this payment may have sent it (a worker that died during its call): a processor that
   * keeps no record of its sends cannot tell it was never received, so it sends it again without asking.
   */
  readonly mayHaveBeenSent?: boolean;
}

/** What Cobro asks an acquirer whose payer authorises on the acquirer's own page (Webpay Plus). */
interface RedirectRequest {
  /** The attempt id: the acquirer's buy order, at most once per attempt. */
  readonly attemptId: string;
  /** The transaction id, sent as the acquirer's session id. */
  readonly sessionId: string;
  readonly amountMinor: bigint;
  readonly currency: string;
  /** Where the acquirer sends the payer back. */
  readonly returnUrl: string;
  /**
   * When Cobro's hold on the sale for this attempt ends, on the service's clock (the acquirer's, not a sandbox
   * account's): an acquirer that lets Cobro say when its session expires is told this (Fintoc, decision 725).
   */
  readonly holdEndsAt: Date;
}

/** The acquirer's answer to a redirect start: the payer's browser posts `token` (as `token_ws`) to `url`. */
interface RedirectStart {
  readonly token: string;
  readonly url: string;
  /**
   * True when the acquirer may take the payment until the session is closed, whatever Cobro's hold (Fintoc: a
   * checkout session is payable until it expires there). Such a session, still `redirected`, holds its sale: no
   * other attempt, no expiry, until it is closed (decisions 665, 725). False when the payment happens only at the
   * commit Cobro makes (Webpay Plus).
   */
  readonly holdsSale: boolean;
  /**
   * The id of the acquirer keys that created it (webpay_keys), when the acquirer's transaction can be reached only
   * with them: its commit, status and refunds use them even after the account's keys changed (decision 996).
   */
  readonly keysId?: string | null;
}

/** The acquirer's own record of a redirect payment, asked when a commit's answer was lost (decision 150). */
export type RedirectStatus =
  | { readonly state: 'approved'; readonly outcome: ApprovedCharge }
  | { readonly state: 'declined'; readonly outcome: DeclinedCharge }
  /** Nothing was committed: no money moved. */
  | { readonly state: 'open' };

/**
 * The sale a redirect session was opened for, as Cobro created it at the acquirer: an answer approving another
 * amount, buy order or session is not this sale's payment (decision 996).
 */
export interface RedirectSale {
  /** The acquirer's buy order. */
  readonly attemptId: string;
  /** The acquirer's session id. */
  readonly transactionId: string;
  readonly amountMinor: bigint;
}

/**
 * A processor whose payer leaves for the acquirer's page and comes back (Webpay Plus): Cobro never sees the card.
 * `commit` is the call that charges; it throws when its answer is lost (timeout, network) or says nothing Cobro can
 * decide on, and the caller then asks `status` before deciding, so a payment is never charged twice nor marked
 * failed when it was charged. `status` throws while the acquirer's record decides nothing (ask again later).
 */
interface RedirectFlow {
  start(request: RedirectRequest): Promise<RedirectStart>;
  commit(token: string, sale: RedirectSale): Promise<ChargeOutcome>;
  status(token: string, sale: RedirectSale): Promise<RedirectStatus>;
}

/**
 * The acquirer could not be reached to start a payment (network error, timeout, or a server error): nothing was
 * created or charged there, so the payer may simply try again. The checkout answers it with a page offering that
 * and the way back to the shop (HTTP 503), never with a bare 500.
 */
export class ProcessorUnavailableError extends Error {
  constructor(processor: string, cause: unknown) {
    super(
      `${processor} did not answer: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
    this.name = 'ProcessorUnavailableError';
  }
}

export interface PaymentProcessor {
  readonly name: string;
  /** `currency`, when given, narrows it to what the processor takes in that currency (Webpay Plus: CLP). */
  supports(kind: ChargeKind, currency?: string): boolean;
  /** The bank-transfer methods (payment codes) it takes, when not all of the currency's (Fintoc: 4, 19, 26). */
  readonly bankPayments?: ReadonlySet<number>;
  /** Present when the payer pays on the acquirer's page instead of Cobro's card form. */
  readonly redirect?: RedirectFlow;
  charge(request: ChargeRequest): Promise<ChargeOutcome>;
  refund(request: RefundRequest): Promise<RefundOutcome>;
  chargeStoredCard(request: StoredCardCharge): Promise<ChargeOutcome>;
}

export function cardBrand(number: string): string {
  if (/^4/.test(number)) return 'Visa';
  if (/^3[47]/.test(number)) return 'American Express';
  if (/^(5[1-5]|2[2-7])/.test(number)) return 'MasterCard';
  if (/^3(0[0-5]|[68])/.test(number)) return 'Diners';
  return 'Otra';
}

export function luhnValid(digits: string): boolean {
  if (!/^\d{12,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}
