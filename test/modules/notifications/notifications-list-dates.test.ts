// Decision 705, finding 7 (a guard): GET /api/notifications answered 500 to a well-formed but out-of-range day
// (year 0000 or 0001): the day parsed (date-range.ts, parseLocal) into a time before 0001-01-01 that the database
// refuses. A client's mistake must be a 400 (`date_init: invalid`), as `date_end=9999-12-31` already is. Decision 680
// fixed it on main before this review's branch met main; the review's test stays as a guard.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/notifications with a day the database cannot hold', () => {
  it.each(['date_init=0000-01-01', 'date_init=0001-01-01&date_end=0001-01-01'])(
    '%s is a 400, not a 500',
    async (query) => {
      const a = await t.createAccount();
      const res = await t.call(a, { method: 'GET', url: `/api/notifications?${query}` });
      expect(res.statusCode, res.body).toBe(400);
    },
  );
});
