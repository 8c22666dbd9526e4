// Decision 510: Cobro builds Fintoc's client from the package's own Client and managers, with the account's host
// in place of the constant. This checks that the paths and the production host are those `new Fintoc()` uses, so
// an upgrade of the pinned client that moves them fails here.
import { describe, expect, it } from 'vitest';
import { Fintoc } from 'fintoc';
import { fintocPaths, fintocProductionUrl } from '../../src/platform/processors/fintoc-client.ts';
import { fintocProductionUrl as settingsProductionUrl } from '../../src/platform/processors/fintoc-settings.ts';

describe('the Fintoc client seam', () => {
  it('mounts the managers on the paths new Fintoc() gives them', () => {
    const f = new Fintoc('sk_test_x');
    // buildPath is protected in the typings; reading it is what this test is for.
    const path = (m: unknown, args?: Record<string, string>) =>
      (m as { buildPath(a?: Record<string, string>): string }).buildPath(args);
    expect(path(f.checkoutSessions)).toBe(fintocPaths.checkoutSessions);
    expect(path(f.paymentIntents)).toBe(fintocPaths.paymentIntents);
    expect(path(f.refunds)).toBe(fintocPaths.refunds);
    expect(path(f.v2.transfers)).toBe(fintocPaths.transfers);
    expect(path(f.v2.accounts)).toBe(fintocPaths.accounts);
    expect(path(f.v2.accounts.movements, { account_id: 'acc_1' })).toBe(
      '/v2/accounts/acc_1/movements',
    );
    expect(fintocProductionUrl).toBe('https://api.fintoc.com');
    // Written out in fintoc-settings.ts so that reading settings does not load the client.
    expect(settingsProductionUrl).toBe(fintocProductionUrl);
  });
});
