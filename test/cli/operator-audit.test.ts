// Issue 36 (decision 566): an operator's command that may change state writes its audit row in the transaction of
// its change. Walks every command the CLI has (allCommands, as test/reliability/cross-account.test.ts walks the
// router's table): one that may change state runs in the dispatcher's transaction with its row
// (src/cli/operator-audit.ts) unless it is listed here, with a reason, as recording its own rows or changing
// nothing; a command added later is covered, or fails here until listed. test/platform/audit/
// audit-same-transaction.test.ts shows a wrapped command's change rolled back with its refused row.
import { describe, expect, it } from 'vitest';
import { allCommands } from '../../src/cli/all-commands.ts';
import { needsOperatorAudit } from '../../src/cli/operator-audit.ts';

/** Commands that record their rows in their own transactions (`audit: 'own'`). */
const ownRows: Readonly<Record<string, string>> = {
  'disputes open': 'its change and row in one transaction (modules/disputes/operator.ts)',
  'disputes resolve': 'as disputes open',
  'disputes import':
    'one transaction and one row a line of the CSV, so a bad line stops only itself',
  'payouts import':
    'one transaction and one row a payout it moves (modules/wallet/payout-batch-import.ts, decision 645): one for the file held every wallet in it to the end and deadlocked with `payouts resolve`',
  'notifications prune':
    'one transaction a batch of callbacks, so a backlog holds no lock for long; its row commits with the first batch that deletes anything (modules/notifications/prune-run.ts, decision 994)',
  'secrets rekey':
    'its secrets and row in one transaction that must commit before the sandbox key file is replaced (platform/auth/rekey-run.ts, decision 935)',
};

/** Commands that change no state the trail records (`audit: 'none'`). */
const changesNothing: Readonly<Record<string, string>> = {
  migrate: "the schema, before any row; the migrations' own table records it",
  backup: 'reads the database and writes a file; in a transaction, the copy would wait for it',
};

describe('operator commands and their audit rows', () => {
  it('every command that may change state runs with its row in one transaction, or is listed here', () => {
    const mayChange = allCommands().filter((c) => c.needsDb && c.readOnly !== true);
    expect(mayChange.length).toBeGreaterThan(20);
    const unlisted = mayChange
      .filter((c) => !needsOperatorAudit(c))
      .filter((c) =>
        c.audit === 'own' ? ownRows[c.name] === undefined : changesNothing[c.name] === undefined,
      )
      .map((c) => `${c.name} (audit: ${c.audit})`);
    expect(unlisted).toEqual([]);
    const stale = [...Object.keys(ownRows), ...Object.keys(changesNothing)].filter(
      (name) => !mayChange.some((c) => c.name === name && !needsOperatorAudit(c)),
    );
    expect(stale).toEqual([]);
  });
});
