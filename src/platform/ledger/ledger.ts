// The Ledger port: the only way a module moves or reads money. Every method runs inside the caller's database
// transaction and takes its account locks itself, in the one order of ledgerLockOrder (docs/ledger.md), so no
// caller orders ledger locks by hand. Callers still choose when, relative to their own business rows, they call
// it (decision 060): business row first, then the ledger.
import type { DbOrTx, Tx } from '../db/types.ts';
import type { FundsSource, Shortfall } from './funds.ts';
import type { JournalKind } from './kinds.ts';
import type { JournalInput, LedgerKey, LockedAccounts, PostedJournal } from './post.ts';
import type { JournalRows } from './journal-statement.ts';
import { ledgerCodes } from './codes.ts';

export type { FundsSource, Shortfall } from './funds.ts';
export { pendingThenWallet } from './funds.ts';
export { journalKinds } from './kinds.ts';
export { ledgerCodes, SYSTEM_OWNER, type LedgerCode } from './codes.ts';
export type { JournalInput, LedgerKey, LockedAccounts, PostedJournal } from './post.ts';
export type { JournalRows } from './journal-statement.ts';
export { journalRowsParams } from './journal-statement.ts';
export { ledgerKeyId } from './post.ts';

/** What every journal names besides its postings. */
interface JournalHeader {
  readonly kind: JournalKind;
  /** The business object the journal belongs to (transaction id, payout id, ...). */
  readonly reference: string;
  readonly memo?: string;
  readonly at: Date;
}

/** wallet_available -> wallet_reserved (reserve), or back (release), of one merchant. */
export interface WalletMove extends JournalHeader {
  readonly owner: string;
  readonly currency: string;
  readonly amountMinor: bigint;
}

function walletMoveJournal(
  move: WalletMove,
  from: LedgerKey['code'],
  to: LedgerKey['code'],
): JournalInput {
  return {
    kind: move.kind,
    reference: move.reference,
    ...(move.memo !== undefined ? { memo: move.memo } : {}),
    at: move.at,
    postings: [
      { owner: move.owner, code: from, currency: move.currency, amountMinor: -move.amountMinor },
      { owner: move.owner, code: to, currency: move.currency, amountMinor: move.amountMinor },
    ],
  };
}

/** The reservation's journal: wallet_available -> wallet_reserved (planned by planReservations after its funds check). */
export function reservationJournal(move: WalletMove): JournalInput {
  return walletMoveJournal(move, ledgerCodes.walletAvailable, ledgerCodes.walletReserved);
}

/** Reserved money back to available (a payout or withdrawal that did not happen): needs no funds check. */
export function releaseJournal(move: WalletMove): JournalInput {
  return walletMoveJournal(move, ledgerCodes.walletReserved, ledgerCodes.walletAvailable);
}

/** One reservation to check: its move, and the journals that follow it in the same statement (an immediate outcome). */
export interface Reservation {
  readonly move: WalletMove;
  /** Journals on the same accounts or derived ones, written with the reservation when it is covered. */
  readonly then: readonly JournalInput[];
}

/** A reservation's funds check: covered, with its journals (their running balances) as they will be posted; or its shortfall. */
export type CheckedReservation =
  | { readonly ok: true; readonly journals: readonly PostedJournal[] }
  | Shortfall;

export interface PlannedReservations {
  /** One answer a reservation, in the order given. */
  readonly checked: readonly CheckedReservation[];
  /**
   * The ledger's rows for every covered reservation (journals, postings, balances), as data for the caller's one
   * statement, which writes them with its own rows (the payout's statement, wallet/payout-statement.ts); null when
   * none is covered.
   */
  readonly rows: JournalRows | null;
}

/** What journals of one kind posted to one owner's account, per business object (`references`). */
interface PostedToQuery {
  readonly kind: JournalKind;
  readonly owner: string;
  readonly code: LedgerKey['code'];
  readonly references: readonly string[];
}

/** The sum a reference's journals posted to the account in one currency. */
interface PostedToRow {
  readonly reference: string;
  readonly currency: string;
  readonly amountMinor: bigint;
}

interface TakeInput extends JournalHeader {
  readonly currency: string;
  readonly amountMinor: bigint;
  /** Where the money comes from, in order (funds.ts builds the usual orders, e.g. pendingThenWallet). */
  readonly sources: readonly FundsSource[];
  /** Where it goes, e.g. the system's refund clearing. */
  readonly to: LedgerKey;
}

type Taken =
  | { readonly ok: true; readonly journal: PostedJournal; readonly partsMinor: readonly bigint[] }
  | Shortfall;

interface SweepInput extends JournalHeader {
  readonly from: LedgerKey;
  readonly to: LedgerKey;
}

/** Journals planned for the caller's one statement: each as it will be posted, and the ledger's rows as data. */
interface PlannedJournalRows {
  readonly posted: readonly PostedJournal[];
  readonly rows: JournalRows;
}

export interface Ledger {
  /** Posts a balanced journal (postings sum to zero per currency), locking its accounts in the ledger's order. */
  post(tx: Tx, journal: JournalInput): Promise<PostedJournal>;
  /**
   * Posts the balanced journals of one business event (1 to limits.journalsPerStatementMax, e.g. a payment's
   * capture and fee) as post does one: their accounts locked once, one statement writing them all.
   */
  postAll(tx: Tx, journals: readonly JournalInput[]): Promise<readonly PostedJournal[]>;
  /** A balance now, without a lock: for reads that show it, never for a check that a write relies on. */
  balance(db: DbOrTx, key: LedgerKey): Promise<bigint>;
  /** Balances of balance-keeping accounts in one read, without a lock (0 for one that never moved), in the order given. */
  balances(db: DbOrTx, keys: readonly LedgerKey[]): Promise<readonly bigint[]>;
  /**
   * Plans balanced journals on the accounts `held` (Ledger.lock) or locked now in one round trip, in the ledger's
   * order, and answers their rows as data for the caller's one statement (journalRowsParams binds them, the
   * statement text is the caller's, whole in its module), which must run in this transaction: a settlement
   * chunk's journals (decision 561). Writes nothing.
   */
  plan(
    tx: Tx,
    journals: readonly JournalInput[],
    held?: LockedAccounts,
  ): Promise<PlannedJournalRows>;
  /** What the journals of `kind` posted to the owner's `code` account, by reference and currency (a report's read; no lock). */
  postedTo(db: DbOrTx, query: PostedToQuery): Promise<readonly PostedToRow[]>;
  /**
   * Locks the accounts until commit, in the ledger's order, and returns their balances in the order given: for a
   * check (a ceiling, a payout order already taken) that must still hold when the caller's journal posts.
   */
  hold(tx: Tx, keys: readonly LedgerKey[]): Promise<readonly bigint[]>;
  /**
   * Locks the accounts (derived ones skipped) until commit in one statement, in the ledger's order, and returns
   * them with their balances: the `held` of a group's planReservations that follows in this transaction.
   */
  lock(tx: Tx, keys: readonly LedgerKey[]): Promise<LockedAccounts>;
  /**
   * Locks, without waiting, those of the accounts (derived ones skipped) that exist and no other transaction holds,
   * and returns only them: the `held` of a group shared by accounts (decision 590), which leaves the rest out.
   */
  lockFree(tx: Tx, keys: readonly LedgerKey[]): Promise<LockedAccounts>;
  /**
   * The funds checks of reservations (available -> reserved of one merchant's wallet), in turn: each reads the
   * balances the ones before it leave, from the accounts `held` (Ledger.lock, every account they post to: a group,
   * decision 330) or, without them, from the accounts it locks now in one round trip. Writes nothing: the caller's
   * one statement writes the covered ones' `rows` with its own (decision 471), in this transaction, which holds
   * the locks until its commit.
   */
  planReservations(
    tx: Tx,
    reservations: readonly Reservation[],
    held?: LockedAccounts,
  ): Promise<PlannedReservations>;
  /** Takes `amountMinor` from the sources in order into `to`; all or nothing, with the shortfall when refused. */
  take(tx: Tx, input: TakeInput): Promise<Taken>;
  /** Moves the whole balance of `from` to `to`; null when it held nothing. */
  sweep(
    tx: Tx,
    input: SweepInput,
  ): Promise<{ readonly movedMinor: bigint; readonly journal: PostedJournal } | null>;
}
