// The per-process gate in front of a wallet's row lock: one piece of work per key at a time, in arrival order,
// other keys unhindered, and a failure passes the turn on rather than blocking the key.
import { describe, expect, it } from 'vitest';
import { KeyedGate } from '../../src/platform/keyed-gate.ts';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => { resolve = r; });
  return { promise, resolve };
}

describe('KeyedGate', () => {
  it('runs one piece of work per key at a time, in arrival order, and other keys meanwhile', async () => {
    const gate = new KeyedGate();
    const events: string[] = [];
    const first = deferred();
    const a1 = gate.run('w1', async () => { events.push('a1 start'); await first.promise; events.push('a1 end'); return 1; });
    const a2 = gate.run('w1', async () => { events.push('a2 start'); return 2; });
    const a3 = gate.run('w1', async () => { events.push('a3 start'); return 3; });
    const b1 = gate.run('w2', async () => { events.push('b1 start'); return 4; });
    expect(await b1).toBe(4);
    expect(events).toEqual(['a1 start', 'b1 start']);
    expect(gate.size).toBe(1);
    first.resolve();
    expect(await Promise.all([a1, a2, a3])).toEqual([1, 2, 3]);
    expect(events).toEqual(['a1 start', 'b1 start', 'a1 end', 'a2 start', 'a3 start']);
    expect(gate.size).toBe(0);
  });

  it('passes the turn on when a piece of work fails', async () => {
    const gate = new KeyedGate();
    const failed = gate.run('w', async () => { throw new Error('refused'); });
    const next = gate.run('w', async () => 'ran');
    await expect(failed).rejects.toThrow('refused');
    expect(await next).toBe('ran');
    expect(gate.size).toBe(0);
  });
});
