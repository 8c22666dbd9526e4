// `cobro notifications list|show|retry` given bad input: one clear line and a non-zero exit, never a crash
// ("unexpected error") (decision 970: this area held; the test keeps it so).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { runOnContext } from '../support/cli-in-process.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('cobro notifications with bad input', () => {
  it.each([
    [['notifications', 'list', '--limit', '0'], /--limit must be an integer from 1 to/],
    [['notifications', 'list', '--limit', '1e3'], /--limit must be an integer from 1 to/],
    [['notifications', 'list', '--limit', '-5'], /--limit|argument missing|option/],
    [['notifications', 'list', '--status', 'lost'], /--status must be one of/],
    [['notifications', 'list', '--bogus'], /unknown option '--bogus'/],
    [['notifications', 'show'], /missing required argument 'ID'/],
    [['notifications', 'show', 'a', 'b'], /too many arguments/],
    [['notifications', 'show', 'msg_nope'], /no notification with id msg_nope/],
    [['notifications', 'retry', ''], /no notification with id/],
    [
      ['notifications', 'retry', `msg_${'x'.repeat(5000)}`],
      /no notification with id msg_x{5000}$/m,
    ],
  ])('case %#: %s', async (args, message) => {
    const out = await runOnContext(args, t.ctx);
    expect(out.code).not.toBe(0);
    expect(out.stdout + out.stderr).toMatch(message);
    expect(out.stderr).not.toContain('unexpected error');
  });
});
