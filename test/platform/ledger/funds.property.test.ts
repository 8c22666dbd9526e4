import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  pendingThenWallet,
  planTake,
  type FundsSource,
} from '../../../src/platform/ledger/funds.ts';
import { ledgerLockOrder, type LedgerKey } from '../../../src/platform/ledger/post.ts';
import { journalKindList } from '../../../src/platform/ledger/kinds.ts';
import fs from 'node:fs';

const key = (owner: string, code = 'wallet_available'): LedgerKey => ({
  owner,
  code,
  currency: 'CLP',
});

describe('planTake: a funds order', () => {
  it('takes from the pending settlement up to the transaction cap, then the wallet, else reports the shortfall', () => {
    const order = pendingThenWallet('acc1', 'CLP', 300n);
    expect(order.map((s) => s.key.code)).toEqual(['pending_settlement', 'wallet_available']);
    expect(planTake(250n, order, [1000n, 0n])).toEqual({ ok: true, partsMinor: [250n, 0n] });
    expect(planTake(500n, order, [1000n, 400n])).toEqual({ ok: true, partsMinor: [300n, 200n] });
    expect(planTake(500n, order, [100n, 400n])).toEqual({ ok: true, partsMinor: [100n, 400n] });
    expect(planTake(800n, order, [1000n, 400n])).toEqual({
      ok: false,
      requiredMinor: 800n,
      availableMinor: 700n,
      shortfallMinor: 100n,
    });
    expect(planTake(1n, order, [0n, 0n])).toEqual({
      ok: false,
      requiredMinor: 1n,
      availableMinor: 0n,
      shortfallMinor: 1n,
    });
  });

  it('never takes more than a source holds or its cap allows, and plans all of it or reports exactly what is missing', () => {
    const source = fc.record({
      balance: fc.bigInt({ min: -1000n, max: 10_000n }),
      cap: fc.option(fc.bigInt({ min: -10n, max: 10_000n }), { nil: undefined }),
    });
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 30_000n }),
        fc.array(source, { minLength: 1, maxLength: 4 }),
        (amount, list) => {
          const sources: FundsSource[] = list.map((s, i) => ({
            key: key(`acc${i}`),
            ...(s.cap !== undefined ? { capMinor: s.cap } : {}),
          }));
          const usable = list.map((s) => {
            let u = s.balance > 0n ? s.balance : 0n;
            if (s.cap !== undefined && s.cap < u) u = s.cap > 0n ? s.cap : 0n;
            return u;
          });
          const total = usable.reduce((a, b) => a + b, 0n);
          const plan = planTake(
            amount,
            sources,
            list.map((s) => s.balance),
          );
          if (!plan.ok)
            return (
              total < amount &&
              plan.availableMinor === total &&
              plan.shortfallMinor === amount - total &&
              plan.requiredMinor === amount
            );
          // Greedy in order: each part is at most what the source may give, and a later source gives only when the earlier ones are spent.
          let left = amount;
          for (const [i, part] of plan.partsMinor.entries()) {
            if (part < 0n || part > usable[i]!) return false;
            if (part !== (usable[i]! < left ? usable[i]! : left)) return false;
            left -= part;
          }
          return left === 0n && total >= amount;
        },
      ),
    );
  });
});

describe('the ledger lock order', () => {
  it('puts merchant, client and beneficiary accounts by owner, code, currency first, and system accounts last', () => {
    const keys: LedgerKey[] = [
      key('system', 'processor_clearing'),
      key('acc2', 'wallet_available'),
      key('system', 'bank_clearing'),
      key('acc1', 'wallet_reserved'),
      key('acc1', 'wallet_available'),
      key('ma1', 'client_payable'),
      key('zzz', 'beneficiary_payable'),
    ];
    expect([...keys].sort(ledgerLockOrder).map((k) => `${k.owner}/${k.code}`)).toEqual([
      'acc1/wallet_available',
      'acc1/wallet_reserved',
      'acc2/wallet_available',
      'ma1/client_payable',
      'zzz/beneficiary_payable',
      'system/bank_clearing',
      'system/processor_clearing',
    ]);
  });

  it('is a total order: antisymmetric and transitive on any keys', () => {
    const anyKey = fc.record({
      owner: fc.constantFrom('system', 'acc1', 'acc2', 'ev1', 'zz'),
      code: fc.constantFrom('a', 'b'),
      currency: fc.constantFrom('CLP', 'USD'),
    });
    fc.assert(
      fc.property(anyKey, anyKey, anyKey, (a, b, c) => {
        const ab = Math.sign(ledgerLockOrder(a, b));
        if (ab !== -Math.sign(ledgerLockOrder(b, a))) return false;
        if (ab === 0) return a.owner === b.owner && a.code === b.code && a.currency === b.currency;
        return (
          !(ledgerLockOrder(a, b) < 0 && ledgerLockOrder(b, c) < 0) || ledgerLockOrder(a, c) < 0
        );
      }),
    );
  });
});

describe('journal kinds', () => {
  it('are each documented in docs/ledger.md', () => {
    const doc = fs.readFileSync(new URL('../../../docs/ledger.md', import.meta.url), 'utf8');
    for (const kind of journalKindList) expect(doc, kind).toContain(`\`${kind}\``);
  });
});
