// Shared calls of the conciliation tests.
import type { TestAccount, TestApp } from '../../support/app.ts';

/** POST /api/conciliation for one local day (`date_init` and `date_end` both `day`), as `account`: the answer. */
export function conciliationOfDay(t: TestApp, account: TestAccount, day: string) {
  return t.call(account, {
    method: 'POST',
    url: '/api/conciliation',
    body: { date_init: day, date_end: day },
  });
}
