// The closed catalogue of journal kinds: every journal the service posts names one of these, so a report, a
// conciliation or a refund can tell money movements apart without parsing free text. Adding a movement means
// adding its kind here (and to docs/ledger.md).
export const journalKinds = {
  /** A paid transaction's gross: processor clearing -> the merchant's pending settlement. */
  transactionCapture: 'transaction.capture',
  /** The service's fee on a paid transaction: pending settlement -> service fees. */
  transactionFee: 'transaction.fee',
  /** A paid transaction's net, on its availability date: pending settlement -> the merchant's wallet. */
  transactionSettlement: 'transaction.settlement',
  /** An escrow sale released by POST /api/escrow (decision 115): escrow held -> the merchant's wallet. */
  escrowReleased: 'escrow.released',
  /** A marketplace payment's clients' parts at settlement: pending settlement -> client payables. */
  marketplaceSplit: 'marketplace_split',
  /** A client's settled share sent to its bank: client payable -> bank clearing. */
  marketplaceClientDeposit: 'marketplace_client_deposit',
  /** An event sale's beneficiaries' parts at settlement: pending settlement -> beneficiary payables. */
  eventSaleSplit: 'event_sale_split',
  /** A beneficiary paid on the event's date_payment: beneficiary payable -> bank clearing. */
  eventBeneficiaryPayout: 'event_beneficiary_payout',
  /** An operator's credit (`cobro wallet credit`): operator adjustments -> wallet. */
  walletAdjustment: 'wallet.adjustment',
  /** The sandbox's credit endpoint: operator adjustments -> wallet. */
  walletSandboxCredit: 'wallet.sandbox_credit',
  /** A payout created: wallet available -> wallet reserved. */
  payoutReserved: 'payout.reserved',
  /** A payout paid: wallet reserved -> bank clearing. */
  payoutPaid: 'payout.paid',
  /** A payout rejected: wallet reserved -> wallet available. */
  payoutReleased: 'payout.released',
  withdrawalReserved: 'withdrawal.reserved',
  withdrawalPaid: 'withdrawal.paid',
  withdrawalReleased: 'withdrawal.released',
  /** A paid payout the bank sent back (decision 830): bank clearing -> wallet available. */
  payoutReturned: 'payout.returned',
  withdrawalReturned: 'withdrawal.returned',
  /** A refund's merchant part: the sale's pending settlement, then the wallet -> refund clearing. */
  refundCollected: 'refund.collected',
  /**
   * A split sale's refund taking back settled parts not yet paid out (decision 116): client or beneficiary
   * payables -> refund clearing.
   */
  refundSplitCollected: 'refund.split_collected',
  /** A refund's part of the service's fee (decision 110): fee refunds -> refund clearing. */
  refundFeeReturned: 'refund.fee_returned',
  /** A refund the processor refused: refund clearing -> the merchant's wallet and fee refunds. */
  refundReturned: 'refund.returned',
  /** A bank refund's payout paid to the payer's bank account (decision 112): refund clearing -> bank clearing. */
  refundPaidOut: 'refund.paid_out',
  /**
   * A chargeback opened (decision 530): wallet available (what it holds, at most the amount) and the merchant's
   * dispute debt (the rest) -> dispute held.
   */
  disputeOpened: 'dispute.opened',
  /** A chargeback won: dispute held -> the merchant's dispute debt (what it still owes), then the wallet. */
  disputeWon: 'dispute.won',
  /** A chargeback lost: dispute held -> processor clearing (the acquirer takes the money back). */
  disputeLost: 'dispute.lost',
  /** A chargeback the merchant accepted: dispute held -> processor clearing, as a lost one. */
  disputeAccepted: 'dispute.accepted',
  /**
   * A chargeback debt paid from money just credited to the wallet (decision 560): wallet available -> the
   * merchant's dispute debt.
   */
  disputeDebtCollected: 'dispute.debt_collected',
  /** A subscription card's CLP 50 check on enrolment: processor clearing -> verification holding. */
  subscriptionVerification: 'subscription.verification',
  /** The check refunded at once: verification holding -> refund clearing. */
  subscriptionVerificationRefund: 'subscription.verification_refund',
} as const;

export type JournalKind = (typeof journalKinds)[keyof typeof journalKinds];

export const journalKindList: readonly JournalKind[] = Object.values(journalKinds);
