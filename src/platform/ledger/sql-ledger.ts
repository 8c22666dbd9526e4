// The Ledger on the service's own tables (post.ts). Stateless: the process builds one (runtime.ts) and every
// request shares it through ctx.ledger.
import assert from 'node:assert/strict';
import { planTake } from './funds.ts';
import { releaseJournal, reservationJournal, type GroupedReservation, type GroupWrite, type Ledger, type ReservedInGroup, type ReservedWith, type ReserveWithInput, type WalletMove, type WrittenReservation } from './ledger.ts';
import type { Shortfall } from './funds.ts';
import { StatementText } from '../db/statement-text.ts';
import { isDerived, ledgerKeyId, lockLedgerAccounts, planJournals, plannedJournalsCtes, postJournal as post, readBalance, type DerivedIds, type JournalInput, type LedgerKey, type LockedAccounts, type PlannedJournals } from './post.ts';
import type { Tx } from '../db/types.ts';

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
  tx: Tx, move: WalletMove, others: readonly LedgerKey[], held?: LockedAccounts,
): Promise<{ ok: true; journal: JournalInput; locked: LockedAccounts } | Shortfall> {
  assert.ok(move.amountMinor > 0n, 'a reservation moves money');
  const journal = reservationJournal(move);
  const [available, reserved] = journal.postings;
  // Accounts this transaction already locked keep the balances it wrote: no other transaction can have moved them.
  const coveredByHeld = held !== undefined && [available!, reserved!, ...others].every((k) => held.has(ledgerKeyId(k)));
  const { balancesMinor: [availableMinor], locked } = coveredByHeld
    ? { balancesMinor: [held.get(ledgerKeyId(available!))!.balanceMinor], locked: held }
    : await holdForCheck(tx, [available!], [reserved!, ...others]);
  if (availableMinor! < move.amountMinor) {
    return { ok: false, requiredMinor: move.amountMinor, availableMinor: availableMinor!, shortfallMinor: move.amountMinor - availableMinor! };
  }
  return { ok: true, journal, locked };
}

/** Ledger.reserveGroup: the funds checks in turn on the held balances, then ONE statement for those that pass. */
async function reserveGroup<Row>(
  tx: Tx, reservations: readonly GroupedReservation[], held: LockedAccounts,
  write: (written: readonly WrittenReservation[], statement: StatementText) => GroupWrite, derivedIds: DerivedIds,
): Promise<readonly ReservedInGroup<Row>[]> {
  const answers: (ReservedInGroup<Row> | null)[] = [];
  const written: WrittenReservation[] = [];
  const plans: PlannedJournals[] = [];
  let holding = held;
  for (const [index, r] of reservations.entries()) {
    const checked = await checkReservation(tx, r.move, r.then.flatMap((j) => j.postings).filter((p) => !isDerived(p)), holding);
    if (!checked.ok) {
      answers.push(checked);
      continue;
    }
    const planned = await planJournals(tx, [checked.journal, ...r.then], checked.locked, derivedIds);
    answers.push(null);
    written.push({ index, journals: planned.posted });
    plans.push(planned);
    holding = planned.heldAfter;
  }
  if (written.length === 0) return answers as ReservedInGroup<Row>[];
  const statement = new StatementText();
  const rows = write(written, statement);
  assert.equal(rows.ids.length, written.length, 'one row a written reservation');
  const follow = rows.follow.map((f, i) => `, follow_${i} AS (${f})`).join('');
  // The same text for a group of any size (decision 370): prepared once, where one grown with the group was planned anew each time.
  const result = await tx.executeQuery<Record<string, unknown>>(statement.compiled(
    `WITH gates AS (${rows.insert}), ${plannedJournalsCtes(statement, plans, 'TRUE')}${follow} SELECT ${rows.rowsWanted ? '*' : 'id'} FROM gates`));
  assert.equal(result.rows.length, written.length, 'a group statement inserted every row');
  // Each row is answered by its id, so no order of the INSERT's output is relied on.
  const indexOfId = new Map(rows.ids.map((id, j) => [id, written[j]!.index]));
  for (const row of result.rows) answers[indexOfId.get(row.id as string)!] = { ok: true, row: rows.rowsWanted ? row as Row : undefined };
  assert.ok(answers.every((a) => a !== null && a !== undefined), 'every written reservation answered');
  return answers as ReservedInGroup<Row>[];
}

export function createLedger(): Ledger {
  // Ids of the derived system accounts of this ledger's database, learnt once (post.ts derivedAccountId).
  const derivedIds: DerivedIds = new Map();
  const postJournal = (tx: Tx, journal: JournalInput, held?: LockedAccounts) => post(tx, journal, held, derivedIds);
  const hold: Ledger['hold'] = async (tx, keys) => {
    for (const k of keys) assert.ok(!isDerived(k), 'a derived system account has no balance to hold');
    const locked = await lockLedgerAccounts(tx, keys);
    return keys.map((k) => locked.get(ledgerKeyId(k))!.balanceMinor);
  };
  return {
    post: (tx, journal) => postJournal(tx, journal),
    balance: readBalance,
    hold,
    lock: (tx, keys) => lockLedgerAccounts(tx, keys.filter((k) => !isDerived(k))),
    async reserve(tx, move) {
      const checked = await checkReservation(tx, move, []);
      if (!checked.ok) return checked;
      return { ok: true, journal: await postJournal(tx, checked.journal, checked.locked) };
    },
    async reserveWith<Row>(tx: Tx, move: WalletMove, input: ReserveWithInput): Promise<ReservedWith<Row>> {
      const checked = await checkReservation(tx, move, input.then.flatMap((j) => j.postings).filter((p) => !isDerived(p)));
      if (!checked.ok) return checked;
      const planned = await planJournals(tx, [checked.journal, ...input.then], checked.locked, derivedIds);
      const statement = new StatementText();
      const write = input.write(planned.posted, statement);
      const follow = write.follow.map((f, i) => `, follow_${i} AS (${f})`).join('');
      const result = await tx.executeQuery<Record<string, unknown>>(statement.compiled(
        `WITH gate AS (${write.insert}), ${planned.ctes(statement, 'EXISTS (SELECT 1 FROM gate)')}${follow}
        SELECT * FROM gate`));
      // The gate's row taken: the statement wrote nothing.
      return { ok: true, row: result.rows[0] as Row | undefined };
    },
    reserveGroup: (tx, reservations, held, write) => reserveGroup(tx, reservations, held, write, derivedIds),
    release: (tx, move) => postJournal(tx, releaseJournal(move)),
    async take(tx, input) {
      for (const s of input.sources) assert.equal(s.key.currency, input.currency, 'a take stays in one currency');
      assert.equal(input.to.currency, input.currency, 'a take stays in one currency');
      const { balancesMinor, locked } = await holdForCheck(tx, input.sources.map((s) => s.key), [input.to]);
      const plan = planTake(input.amountMinor, input.sources, balancesMinor);
      if (!plan.ok) return plan;
      const journal = await postJournal(tx, {
        kind: input.kind, reference: input.reference, ...(input.memo !== undefined ? { memo: input.memo } : {}), at: input.at,
        postings: [
          ...input.sources.flatMap((s, i) => (plan.partsMinor[i]! > 0n ? [{ ...s.key, amountMinor: -plan.partsMinor[i]! }] : [])),
          { ...input.to, amountMinor: input.amountMinor },
        ],
      }, locked);
      return { ok: true, journal, partsMinor: plan.partsMinor };
    },
    async sweep(tx, input) {
      const { balancesMinor: [fromMinor], locked } = await holdForCheck(tx, [input.from], [input.to]);
      if (fromMinor === 0n) return null;
      assert.ok(fromMinor! > 0n, 'only a positive balance is swept');
      const journal = await postJournal(tx, {
        kind: input.kind, reference: input.reference, ...(input.memo !== undefined ? { memo: input.memo } : {}), at: input.at,
        postings: [{ ...input.from, amountMinor: -fromMinor! }, { ...input.to, amountMinor: fromMinor! }],
      }, locked);
      return { movedMinor: fromMinor!, journal };
    },
  };
}
