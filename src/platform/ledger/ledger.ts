// The Ledger port: the only way a module moves or reads money. Every method runs inside the caller's database
// transaction and takes its account locks itself, in the one order of ledgerLockOrder (docs/ledger.md), so no
// caller orders ledger locks by hand. Callers still choose when, relative to their own business rows, they call
// it (decision 060): business row first, then the ledger.
import type { DbOrTx, Tx } from '../db/types.ts';
import type { StatementText } from '../db/statement-text.ts';
import type { FundsSource, Shortfall } from './funds.ts';
import type { JournalKind } from './kinds.ts';
import type { JournalInput, LedgerKey, LockedAccounts, PostedJournal } from './post.ts';
import { ledgerCodes } from './codes.ts';

export type { FundsSource, Shortfall } from './funds.ts';
export { pendingThenWallet } from './funds.ts';
export type { JournalKind } from './kinds.ts';
export { journalKinds } from './kinds.ts';
export { ledgerCodes, SYSTEM_OWNER, type LedgerCode } from './codes.ts';
export type { JournalInput, LedgerKey, LockedAccounts, PostedJournal, PostedLine, PostingInput } from './post.ts';

/** What every journal names besides its postings. */
export interface JournalHeader {
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

export type Posted = { readonly ok: true; readonly journal: PostedJournal };

function walletMoveJournal(move: WalletMove, from: LedgerKey['code'], to: LedgerKey['code']): JournalInput {
  return {
    kind: move.kind, reference: move.reference, ...(move.memo !== undefined ? { memo: move.memo } : {}), at: move.at,
    postings: [
      { owner: move.owner, code: from, currency: move.currency, amountMinor: -move.amountMinor },
      { owner: move.owner, code: to, currency: move.currency, amountMinor: move.amountMinor },
    ],
  };
}

/** The reservation's journal: wallet_available -> wallet_reserved (posted by reserve and reserveWith after their funds check). */
export function reservationJournal(move: WalletMove): JournalInput {
  return walletMoveJournal(move, ledgerCodes.walletAvailable, ledgerCodes.walletReserved);
}

/** Reserved money back to available (a payout or withdrawal that did not happen): needs no funds check. */
export function releaseJournal(move: WalletMove): JournalInput {
  return walletMoveJournal(move, ledgerCodes.walletReserved, ledgerCodes.walletAvailable);
}

/**
 * The business row a reservation belongs to, written by the reservation's own statement: `insert` is the text of
 * an `INSERT ... ON CONFLICT DO NOTHING RETURNING *` that the statement names `gate`; the journals, and each of
 * `follow` (statements that select `FROM gate`, so they write nothing when it is empty), are written only when it
 * inserted its row. Their values are parameters of the statement they are written for (decision 290).
 */
export interface GatedWrite {
  readonly insert: string;
  readonly follow: readonly string[];
}

export interface ReserveWithInput {
  /** Journals that follow the reservation in the same statement, on the same accounts or derived ones (an immediate outcome). */
  readonly then: readonly JournalInput[];
  /** Built from the posted journals (their running balances), before the statement runs, its values bound as `statement`'s. */
  readonly write: (journals: readonly PostedJournal[], statement: StatementText) => GatedWrite;
}

/** `row` is undefined (and nothing was written) when the gate found its row taken. */
export type ReservedWith<Row> = { readonly ok: true; readonly row: Row | undefined } | Shortfall;

/** One reservation of a group written by ONE statement (Ledger.reserveGroup). */
export interface GroupedReservation {
  readonly move: WalletMove;
  /** Journals that follow the reservation, as ReserveWithInput.then. */
  readonly then: readonly JournalInput[];
}

/** A reservation of the group that passed its funds check: `index` in the group, its posted journals. */
export interface WrittenReservation {
  readonly index: number;
  readonly journals: readonly PostedJournal[];
}

/**
 * The caller's rows of a group statement, values bound as `statement`'s: `insert` is one plain
 * `INSERT ... RETURNING *` of every written reservation's row (no ON CONFLICT: a row already taken fails the whole
 * statement), named `gates`, and `ids[i]` the `id` column of written[i]'s row; `follow` are statements that read
 * `gates` (one for all of the rows, when their order matters: the sub-statements of one statement run in no set
 * order). With `rowsWanted` false the statement answers only the ids and no row comes back: a caller that reads
 * nothing of its rows spares the database and the driver the rest of each one.
 */
export interface GroupWrite {
  readonly insert: string;
  readonly ids: readonly string[];
  readonly follow: readonly string[];
  readonly rowsWanted: boolean;
}

/** `row` is undefined when the caller's GroupWrite did not want the rows. */
export type ReservedInGroup<Row> = { readonly ok: true; readonly row: Row | undefined } | Shortfall;

export interface TakeInput extends JournalHeader {
  readonly currency: string;
  readonly amountMinor: bigint;
  /** Where the money comes from, in order (funds.ts builds the usual orders, e.g. pendingThenWallet). */
  readonly sources: readonly FundsSource[];
  /** Where it goes, e.g. the system's refund clearing. */
  readonly to: LedgerKey;
}

export type Taken = { readonly ok: true; readonly journal: PostedJournal; readonly partsMinor: readonly bigint[] } | Shortfall;

export interface SweepInput extends JournalHeader {
  readonly from: LedgerKey;
  readonly to: LedgerKey;
}

export interface Ledger {
  /** Posts a balanced journal (postings sum to zero per currency), locking its accounts in the ledger's order. */
  post(tx: Tx, journal: JournalInput): Promise<PostedJournal>;
  /** A balance now, without a lock: for reads that show it, never for a check that a write relies on. */
  balance(db: DbOrTx, key: LedgerKey): Promise<bigint>;
  /**
   * Locks the accounts until commit, in the ledger's order, and returns their balances in the order given: for a
   * check (a ceiling, a payout order already taken) that must still hold when the caller's journal posts.
   */
  hold(tx: Tx, keys: readonly LedgerKey[]): Promise<readonly bigint[]>;
  /**
   * Locks the accounts (derived ones skipped) until commit in one statement, in the ledger's order, and returns
   * them with their balances: the `held` of a group of reserveWith calls that follow in this transaction.
   */
  lock(tx: Tx, keys: readonly LedgerKey[]): Promise<LockedAccounts>;
  /** Moves available -> reserved when the available balance covers it; otherwise writes nothing and says by how much it falls short. */
  reserve(tx: Tx, move: WalletMove): Promise<Posted | Shortfall>;
  /**
   * Like reserve, with the funds check's lock (one round trip) followed by ONE statement that writes the caller's
   * row (GatedWrite), the reservation, the `then` journals and the caller's follow-up rows, or nothing at all when
   * the row was taken: the lock is held for that statement and the commit only (docs/performance.md). `Row` is the gate's row as the driver returns
   * it (as Kysely's returningAll would).
   */
  reserveWith<Row>(tx: Tx, move: WalletMove, input: ReserveWithInput): Promise<ReservedWith<Row>>;
  /**
   * Several reservations in the accounts `held` (Ledger.lock, every account they post to), in ONE statement (decision
   * 330): each funds check, in order, reads the balances the ones before it leave; those covered are written with
   * their rows (`write`) and journals by one statement, the refused ones write nothing and answer their shortfall.
   * All or nothing: a row already taken (or any other error) fails the statement, and the caller's transaction
   * with it.
   */
  reserveGroup<Row>(
    tx: Tx, reservations: readonly GroupedReservation[], held: LockedAccounts,
    write: (written: readonly WrittenReservation[], statement: StatementText) => GroupWrite,
  ): Promise<readonly ReservedInGroup<Row>[]>;
  /** Posts releaseJournal: reserved -> available (a payout or withdrawal that did not happen). */
  release(tx: Tx, move: WalletMove): Promise<PostedJournal>;
  /** Takes `amountMinor` from the sources in order into `to`; all or nothing, with the shortfall when refused. */
  take(tx: Tx, input: TakeInput): Promise<Taken>;
  /** Moves the whole balance of `from` to `to`; null when it held nothing. */
  sweep(tx: Tx, input: SweepInput): Promise<{ readonly movedMinor: bigint; readonly journal: PostedJournal } | null>;
}
