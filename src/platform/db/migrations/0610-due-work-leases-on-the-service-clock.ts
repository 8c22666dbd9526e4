import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 785: a refund's dispatch time (`dispatch_due_at`, also its dispatch lease), a billing attempt's lease
// (`su_cycles.attempt_lease_until`) and an enrolment's claim (`su_enrolments.attempt_lease_until`) are dated on the
// service clock from now on, as decision 760 did for checkout attempts (migration 0580). Those already written on an
// account clock moved by the sandbox are brought back onto the service clock (the account's offset taken off), so
// none holds past its real time and none is due later than it was; production has no offsets.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `UPDATE nullifications n SET dispatch_due_at = n.dispatch_due_at - c.offset_ms * INTERVAL '1 millisecond'
      FROM sandbox_clocks c WHERE c.account_id = n.account_id AND n.dispatch_due_at IS NOT NULL;
    UPDATE su_cycles y SET attempt_lease_until = y.attempt_lease_until - c.offset_ms * INTERVAL '1 millisecond'
      FROM sandbox_clocks c WHERE c.account_id = y.account_id AND y.attempt_lease_until IS NOT NULL;
    UPDATE su_enrolments e SET attempt_lease_until = e.attempt_lease_until - c.offset_ms * INTERVAL '1 millisecond'
      FROM sandbox_clocks c WHERE c.account_id = e.account_id AND e.attempt_lease_until IS NOT NULL;`,
  );
}

// Decision 1085: the `up`'s UPDATEs undone (the offsets put back), so a downgrade past this migration leaves the due
// times on the account's clock, where the release before it reads them.
export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `UPDATE nullifications n SET dispatch_due_at = n.dispatch_due_at + c.offset_ms * INTERVAL '1 millisecond'
      FROM sandbox_clocks c WHERE c.account_id = n.account_id AND n.dispatch_due_at IS NOT NULL;
    UPDATE su_cycles y SET attempt_lease_until = y.attempt_lease_until + c.offset_ms * INTERVAL '1 millisecond'
      FROM sandbox_clocks c WHERE c.account_id = y.account_id AND y.attempt_lease_until IS NOT NULL;
    UPDATE su_enrolments e SET attempt_lease_until = e.attempt_lease_until + c.offset_ms * INTERVAL '1 millisecond'
      FROM sandbox_clocks c WHERE c.account_id = e.account_id AND e.attempt_lease_until IS NOT NULL;`,
  );
}
