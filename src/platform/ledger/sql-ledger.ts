// The Ledger on the service's own tables (post.ts, journal-statement.ts). Stateless: the process builds one
// (runtime.ts) and every request shares it through ctx.ledger.
import assert from 'node:assert/strict';
import { planTake } from './funds.ts';
import {
  reservationJournal,
  type CheckedReservation,
  type Ledger,
  type PlannedReservations,
  type Reservation,
  type WalletMove,
} from './ledger.ts';
import type { Shortfall } from './funds.ts';
import {
  isDerived,
  ledgerKeyId,
  lockFreeLedgerAccounts,
  lockLedgerAccounts,
  readBalance,
  readBalances,
  readPostedTo,
  type DerivedIds,
  type JournalInput,
  type LedgerKey,
  type LockedAccounts,
  type PostedJournal,
} from './post.ts';
import { planJournals, type PlannedJournals } from './journal-plan.ts';
import { journalRowsOf, postJournal as post, postJournals } from './journal-statement.ts';
import type { Tx } from '../db/types.ts';
import { limits } from '../../limits/index.ts';

/**
 * Locks the accounts a check reads together with the journal's other balance-keeping accounts, in one round
 * trip and in ledgerLockOrder (a multi-row upsert locks in the order of its rows), and returns the checked
 * balances; the journal then locks nothing more. A refused check has locked (or created, empty) the journal's
 * other accounts too, which is harmless: a refusal writes nothing else and ends its transaction soon.
 */
async function holdForCheck(tx: Tx, checked: readonly LedgerKey[], others: readonly LedgerKey[]) {
  const locked = await lockLedgerAccounts(tx, [...checked, ...others.filter((k) => !isDerived(k))]);
  return { balancesMinor: checked.map((k) => locked.get(ledgerKeyId(k))!.balanceMinor), locked };
}

/**
 * A reservation's funds check: locks the wallet's available and reserved accounts with the `others` the same
 * statement will post to, and says whether the available balance covers the move.
 */
async function checkReservation(
  tx: Tx,
  move: WalletMove,
  others: readonly LedgerKey[],
  held?: LockedAccounts,
): Promise<{ ok: true; journal: JournalInput; locked: LockedAccounts } | Shortfall> {
  assert.ok(move.amountMinor > 0n, 'a reservation moves money');
  const journal = reservationJournal(move);
  const [available, reserved] = journal.postings;
  // Accounts this transaction already locked keep the balances it wrote: no other transaction can have moved them.
  const coveredByHeld =
    held !== undefined && [available!, reserved!, ...others].every((k) => held.has(ledgerKeyId(k)));
  const {
    balancesMinor: [availableMinor],
    locked,
  } = coveredByHeld
    ? { balancesMinor: [held.get(ledgerKeyId(available!))!.balanceMinor], locked: held }
    : await holdForCheck(tx, [available!], [reserved!, ...others]);
  if (availableMinor! < move.amountMinor) {
    return {
      ok: false,
      requiredMinor: move.amountMinor,
      availableMinor: availableMinor!,
      shortfallMinor: move.amountMinor - availableMinor!,
    };
  }
  return { ok: true, journal, locked };
}

/**
 * Ledger.planReservations: the funds checks in turn, each on the balances the ones before it leave (those `held`,
 * or for the first one not covered by them, locked now in one round trip), and the journals of those covered.
 */
async function planReservations(
  tx: Tx,
  reservations: readonly Reservation[],
  held: LockedAccounts | undefined,
  derivedIds: DerivedIds,
): Promise<PlannedReservations> {
  const checked: CheckedReservation[] = [];
  const plans: PlannedJournals[] = [];
  let holding = held;
  for (const r of reservations) {
    const check = await checkReservation(
      tx,
      r.move,
      r.then.flatMap((j) => j.postings).filter((p) => !isDerived(p)),
      holding,
    );
    if (!check.ok) {
      checked.push(check);
      continue;
    }
    const planned = await planJournals(tx, [check.journal, ...r.then], check.locked, derivedIds);
    checked.push({ ok: true, journals: planned.posted });
    plans.push(planned);
    holding = planned.heldAfter;
  }
  return { checked, rows: plans.length === 0 ? null : journalRowsOf(plans) };
}

type PostJournal = (tx: Tx, journal: JournalInput, held?: LockedAccounts) => Promise<PostedJournal>;

/** Ledger.take: the amount from the sources in order, as far as each holds it, into one account. */
async function takeFrom(
  tx: Tx,
  input: Parameters<Ledger['take']>[1],
  postJournal: PostJournal,
): ReturnType<Ledger['take']> {
  for (const s of input.sources)
    assert.equal(s.key.currency, input.currency, 'a take stays in one currency');
  assert.equal(input.to.currency, input.currency, 'a take stays in one currency');
  const { balancesMinor, locked } = await holdForCheck(
    tx,
    input.sources.map((s) => s.key),
    [input.to],
  );
  const plan = planTake(input.amountMinor, input.sources, balancesMinor);
  if (!plan.ok) return plan;
  const journal = await postJournal(
    tx,
    {
      kind: input.kind,
      reference: input.reference,
      ...(input.memo !== undefined ? { memo: input.memo } : {}),
      at: input.at,
      postings: [
        ...input.sources.flatMap((s, i) =>
          plan.partsMinor[i]! > 0n ? [{ ...s.key, amountMinor: -plan.partsMinor[i]! }] : [],
        ),
        { ...input.to, amountMinor: input.amountMinor },
      ],
    },
    locked,
  );
  return { ok: true, journal, partsMinor: plan.partsMinor };
}

/** Ledger.sweep: an account's whole positive balance into another. */
async function sweepAll(
  tx: Tx,
  input: Parameters<Ledger['sweep']>[1],
  postJournal: PostJournal,
): ReturnType<Ledger['sweep']> {
  const {
    balancesMinor: [fromMinor],
    locked,
  } = await holdForCheck(tx, [input.from], [input.to]);
  if (fromMinor === 0n) return null;
  assert.ok(fromMinor! > 0n, 'only a positive balance is swept');
  const journal = await postJournal(
    tx,
    {
      kind: input.kind,
      reference: input.reference,
      ...(input.memo !== undefined ? { memo: input.memo } : {}),
      at: input.at,
      postings: [
        { ...input.from, amountMinor: -fromMinor! },
        { ...input.to, amountMinor: fromMinor! },
      ],
    },
    locked,
  );
  return { movedMinor: fromMinor!, journal };
}

export function createLedger(): Ledger {
  // Ids of the derived system accounts of this ledger's database, learnt once (post.ts derivedAccountId).
  const derivedIds: DerivedIds = new Map();
  const postJournal = (tx: Tx, journal: JournalInput, held?: LockedAccounts) =>
    post(tx, journal, held, derivedIds);
  const hold: Ledger['hold'] = async (tx, keys) => {
    for (const k of keys)
      assert.ok(!isDerived(k), 'a derived system account has no balance to hold');
    const locked = await lockLedgerAccounts(tx, keys);
    return keys.map((k) => locked.get(ledgerKeyId(k))!.balanceMinor);
  };
  return {
    post: (tx, journal) => postJournal(tx, journal),
    postAll: (tx, journals) => postJournals(tx, journals, undefined, derivedIds),
    balance: readBalance,
    balances: readBalances,
    plan: async (tx, journals, held) => {
      const planned = await planJournals(tx, journals, held, derivedIds, limits.journalsPerPlanMax);
      return { posted: planned.posted, rows: journalRowsOf([planned]) };
    },
    postedTo: readPostedTo,
    hold,
    lock: (tx, keys) =>
      lockLedgerAccounts(
        tx,
        keys.filter((k) => !isDerived(k)),
      ),
    lockFree: (tx, keys) =>
      lockFreeLedgerAccounts(
        tx,
        keys.filter((k) => !isDerived(k)),
      ),
    planReservations: (tx, reservations, held) =>
      planReservations(tx, reservations, held, derivedIds),
    take: (tx, input) => takeFrom(tx, input, postJournal),
    sweep: (tx, input) => sweepAll(tx, input, postJournal),
  };
}
