// Bounds of the wallet and of money leaving it: payouts (seed "Wallet"; reference §9), their bank files, and the
// marketplace's deposits of clients' settled shares.
import { minuteMs, hourMs, dayMs } from './units.ts';

export const walletLimits = {
  // Wallet and payouts (seed "Wallet"; reference §9).
  /**
   * The most a credit (`cobro wallet credit`, the sandbox's) may take a wallet to: 2^53 - 1, so a wallet only
   * credits fill stays a number every JSON client reads exactly. Money owed to the merchant (settlements, escrow
   * releases, returns) is never refused at it, and a balance past it is answered exact (decision 720).
   */
  walletBalanceMinorMax: BigInt(Number.MAX_SAFE_INTEGER),
  payoutEmailLengthMax: 50,
  payoutPhoneLengthMax: 20,
  /** The seed's 4-digit SBIF bank code of a payout. */
  payoutBankSbifLengthMax: 4,
  payoutIdLengthMax: 40,
  payoutOrderLengthMax: 80,
  payoutSubjectLengthMax: 200,
  /** Banco Estado (0012): at most 12 characters, so a debit card number cannot be entered (seed Limits). */
  bancoEstadoNumLengthMax: 12,
  bankNumLengthMax: 200,
  bankRutLengthMax: 15,
  bankHolderNameLengthMax: 180,
  /** The reason an operator or a sandbox credit gives for crediting a wallet. */
  walletCreditReasonLengthMax: 200,
  /** `cobro wallet credit --key`: the operator's name for a credit (a ticket number), unique per account. */
  walletCreditKeyLengthMax: 100,
  /**
   * Payouts of one wallet written in one transaction by a group commit (decision 220): bounds how long it holds the
   * wallet's lock, and how many requests one unexpected failure sends to run again alone.
   */
  walletGroupCommitPayoutsMax: 32,
  /** Readers of one wallet page answered by one statement (decision 625); all get the same answer. */
  walletSummaryReadGroupMax: 256,
  /** Sandbox payout schedule for amounts without an immediate outcome, in account time from creation. */
  sandboxPayoutProcessingAfterMs: minuteMs,
  sandboxPayoutSuccessAfterMs: hourMs,
  /** Production payouts in one bank payroll file (`cobro payouts export`); the rest wait for the next file. */
  payoutBatchRowsMax: 2000,
  /** The largest bank results file `cobro payouts import` reads, and its longest reason text. */
  payoutResultsFileBytesMax: 4 * 1024 * 1024,
  payoutResultReasonLengthMax: 200,
  /** Problems of a refused results file named one per line on stderr; past this many, the rest are counted. */
  payoutImportProblemLinesMax: 20,
  // Marketplace deposits of clients' settled shares.
  /**
   * How long a settled share waits in the client's payable before it is sent to the client's bank: deposits go out
   * in the next day's run (decision 046), which also gives `liquidate` a day's life the merchant can see.
   */
  clientDepositDelayMs: dayMs,
  /** How long a bank takes to confirm a deposit to a client's account. */
  clientDepositConfirmMs: dayMs,
} as const;
