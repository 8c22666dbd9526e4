// Bounds of money and of the seed's fields: amounts, field lengths, fees; the ledger's journals and splits; the
// keyless payment creates one statement writes.

export const moneyLimits = {
  // Money and fields from the seed.
  amountDigitsMax: 14,
  /** 10^14 - 1: the largest amount the seed's "max 14 digits" allows. */
  amountMinorMax: 99_999_999_999_999n,
  accountNameLengthMax: 120,
  additionalParametersCharsMax: 4000,
  callbackUrlLengthMax: 600,
  currencyCodeLengthMax: 6,
  /** `YYYY-MM-DD HH:MM:SS`, the seed's date-time text. */
  dateTimeTextLengthMax: 19,
  /** `YYYY-MM-DD`, the seed's date filters. */
  dateTextLengthMax: 10,
  /** A `true`/`false` query flag. */
  flagTextLengthMax: 5,
  transactionIdLengthMax: 30,
  /** A payment method code in a query or form; 99 offers all (allMethodsPayment). */
  paymentMethodCodeMax: 999,
  /** The largest page number the transaction list accepts. */
  transactionPageMax: 1_000_000,
  notificationIdLengthMax: 64,
  /** A fee's percentage in basis points: at most 100 %. */
  feePercentBpMax: 10_000,
  // Ledger: one journal, one split.
  /** The postings of one journal; a sale's settlement posts one per beneficiary or client share. */
  postingsPerJournalMax: 64,
  /** The journals one statement writes: a payout's reservation and its immediate outcome are two. */
  journalsPerStatementMax: 4,
  /**
   * The journals one Ledger.plan writes by its caller's statement: a settlement chunk's settlement and debt
   * collection for each of its accounts (decision 561), so at least twice settlementChunkMax.
   */
  journalsPerPlanMax: 2_000,
  /** The parts one amount is divided into (src/platform/money/split.ts). */
  sharesPerSplitMax: 64,
  /**
   * Keyless creates written by one statement (decision 400): bounds the statement's arrays, and how many requests
   * one unexpected failure sends to run again alone.
   */
  transactionCreateGroupMax: 32,
  /**
   * Payments' successes of one account recorded by one transaction (decision 615): bounds how long the group holds
   * the merchant's pending settlement and its rows, and how many payers one unexpected failure answers.
   */
  paymentSuccessGroupMax: 32,
  /** Attempts' claims of one account made by one statement (decision 620): bounds the statement's arrays. */
  attemptClaimGroupMax: 32,
  /** Checkout rows read by one statement for concurrent payers' pages (decision 715): bounds its array. */
  transactionRowReadGroupMax: 256,
} as const;
