// Ledger account codes. Owner is a merchant account id, a marketplace client id, or SYSTEM_OWNER.
// Sign convention: a posting of +x adds x to the account's balance; every journal sums to zero per currency.
export const SYSTEM_OWNER = 'system';

export const ledgerCodes = {
  /** Merchant money it can pay out now. */
  walletAvailable: 'wallet_available',
  /** Merchant money held for payouts and withdrawals in flight. */
  walletReserved: 'wallet_reserved',
  /** Merchant money from paid transactions not yet settled to the wallet. */
  pendingSettlement: 'pending_settlement',
  /** Merchant money of settled escrow sales, held until the merchant releases it (decision 115). */
  escrowHeld: 'escrow_held',
  /** Merchant money a chargeback holds until the acquirer decides (decision 530). */
  disputeHeld: 'dispute_held',
  /**
   * What a merchant owes the service for chargebacks its wallet could not cover (decision 530): goes negative by
   * the debt, never the wallet.
   */
  disputeDebt: 'dispute_debt',
  /** What the service owes a marketplace client (owner = client id). */
  clientPayable: 'client_payable',
  /** What the service owes an event beneficiary (owner = beneficiary id). */
  beneficiaryPayable: 'beneficiary_payable',
  /** System: the service's fee income. */
  serviceFees: 'service_fees',
  /** System: money received from processors (goes negative as payers pay). */
  processorClearing: 'processor_clearing',
  /** System: money sent to banks by payouts, withdrawals and bank refunds (grows positive as money leaves). */
  bankClearing: 'bank_clearing',
  /** System: operator adjustments and sandbox funding (goes negative as money is granted). */
  operatorAdjustments: 'operator_adjustments',
  /** System: refunds collected from merchants (given back by card processors; a bank refund leaves to bank_clearing). */
  refundClearing: 'refund_clearing',
  /**
   * System: the part of its fees the service gave back with refunds (decision 110), a contra account of
   * service_fees, which may only receive money (decision 130): goes negative as fees return.
   */
  feeRefunds: 'fee_refunds',
  /** System: subscription card checks between their charge and their refund (nets to zero). */
  verificationHolding: 'verification_holding',
} as const;

export type LedgerCode = (typeof ledgerCodes)[keyof typeof ledgerCodes];

const nonNegativeCodes: ReadonlySet<string> = new Set([
  ledgerCodes.walletAvailable,
  ledgerCodes.walletReserved,
  ledgerCodes.pendingSettlement,
  ledgerCodes.escrowHeld,
  ledgerCodes.disputeHeld,
  ledgerCodes.clientPayable,
  ledgerCodes.beneficiaryPayable,
  ledgerCodes.serviceFees,
]);

/** Accounts that hold money owed to someone can never go below zero; clearing accounts can. */
export function isNonNegative(code: string): boolean {
  return nonNegativeCodes.has(code);
}
