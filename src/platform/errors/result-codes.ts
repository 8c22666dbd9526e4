// The business result codes (STYLE rule 7): a well-formed request that a rule refuses is answered HTTP 200
// `{"status":"failed","type":"<code>","message_error":"<text>"}` (supplement §3). Each code is here once with its
// message template, named in docs/errors.md and triggered by a test over HTTP
// (test/platform/errors/errors-catalogue.test.ts keeps all three in step). `ruleFailure` takes only these codes,
// with the template's parameters.
export const resultCodes = {
  insufficient_funds: (p: {
    readonly availableMinor: bigint;
    readonly currency: string;
    readonly requestedMinor: bigint;
  }) => `available balance ${p.availableMinor} ${p.currency} does not cover ${p.requestedMinor}`,
  duplicate_order: (p: { readonly order: string }) =>
    `order ${p.order} was already used with different parameters`,
  bank_account_missing: (p: { readonly currency: string }) =>
    `the account has no ${p.currency} bank account for withdrawals; an operator sets it with cobro accounts set-bank`,
  client_suspended: (p: { readonly clientId: string }) =>
    `client ${p.clientId} is suspended and cannot join a membership`,
  marketplace_suspended: (p: { readonly membershipId: string; readonly clientId?: string }) =>
    p.clientId === undefined
      ? `membership ${p.membershipId} is suspended`
      : `client ${p.clientId} of membership ${p.membershipId} is suspended`,
  duplicate_event: (p: { readonly event: string }) => `event ${p.event} already exists`,
  event_sales_closed: (p: { readonly event: string }) => `sales for event ${p.event} are closed`,
  event_currency_mismatch: (p: { readonly event: string; readonly currency: string }) =>
    `event ${p.event} sells in ${p.currency}`,
  subscription_not_chargeable: (p: { readonly subscriptionId: string; readonly reason: string }) =>
    `subscription ${p.subscriptionId} cannot be charged: ${p.reason}`,
  mall_order_used: (p: { readonly order: string }) => `mall order ${p.order} was already used`,
  notification_delivering: () =>
    'the notification is being delivered right now; look at it again in a moment',
  payment_method_unavailable: (p: { readonly payment: number; readonly currency: string }) =>
    `payment method ${p.payment} (${p.currency}) cannot be taken by this account: no processor is configured for it; GET /api/paymentmethods lists what it can take`,
  processor_not_configured: () =>
    'no payment processor is configured for this account, so no payer could pay this sale; an operator sets one with cobro accounts set-processor (docs/production-payments.md)',
  stored_cards_not_configured: () =>
    'this account cannot charge stored cards in production: an operator sets its Transbank Oneclick Mall keys with cobro accounts set-processor --oneclick-commerce-code (docs/production-payments.md)',
  currency_not_payable: (p: { readonly currency: string }) =>
    `no payment method in ${p.currency} can be taken by this account, so no payer could pay this sale; GET /api/paymentmethods lists what it can take`,
  transaction_not_paid: (p: { readonly id: string; readonly status: string }) =>
    `transaction ${p.id} is ${p.status}: only a paid transaction can be refunded`,
  already_refunded: (p: { readonly id: string }) =>
    `transaction ${p.id} is already refunded in full`,
  refund_exceeds_paid: (p: {
    readonly id: string;
    readonly leftMinor: bigint;
    readonly currency: string;
    readonly requestedMinor: bigint;
  }) =>
    `transaction ${p.id} has ${p.leftMinor} ${p.currency} left to refund, less than ${p.requestedMinor}`,
  earlier_refund_unresolved: (p: { readonly id: string; readonly refundId: string }) =>
    `transaction ${p.id} has refund ${p.refundId} awaiting a check at the processor (unresolved); no other refund of it is sent until an operator resolves it`,
  refund_not_supported: (p: { readonly id: string; readonly reason: string }) =>
    `transaction ${p.id} cannot be refunded here: ${p.reason}`,
  transaction_not_disputable: (p: { readonly id: string; readonly status: string }) =>
    `transaction ${p.id} is ${p.status}: only a paid sale can be disputed`,
  dispute_exceeds_remaining: (p: {
    readonly id: string;
    readonly leftMinor: bigint;
    readonly currency: string;
    readonly requestedMinor: bigint;
  }) =>
    `transaction ${p.id} has ${p.leftMinor} ${p.currency} left after refunds and open disputes, less than ${p.requestedMinor}`,
  dispute_closed: (p: { readonly id: string; readonly status: string }) =>
    `dispute ${p.id} is ${p.status}: it can no longer change`,
  dispute_response_late: (p: { readonly id: string; readonly respondBy: string }) =>
    `dispute ${p.id} had to be answered by ${p.respondBy}`,
  not_escrow: () => 'your account is not escrow',
} as const;

export type ResultCode = keyof typeof resultCodes;
export type ResultParams<C extends ResultCode> = Parameters<(typeof resultCodes)[C]>;
