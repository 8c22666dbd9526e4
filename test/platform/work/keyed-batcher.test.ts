// Group commit per key: the first item runs at once and alone; what arrives while a key's batch runs becomes its
// next batch, in arrival order and at most batchMax long; other keys are not held; a failed batch rejects only its
// own items and the key goes on.
import { describe, expect, it } from 'vitest';
import {
  KeyedBatcher,
  settleEach,
  settleGroup,
  type Settled,
} from '../../../src/platform/work/keyed-batcher.ts';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('KeyedBatcher', () => {
  it('runs the first item alone, then what queued meanwhile as batches of at most batchMax, in order', async () => {
    const batches: string[][] = [];
    const gate = deferred();
    const batcher = new KeyedBatcher<string, string>(async (key, items) => {
      batches.push([key, ...items]);
      if (items[0] === 'a1') await gate.promise;
      return items.map((item): Settled<string> => ({ ok: true, value: item.toUpperCase() }));
    }, 2);
    const a = ['a1', 'a2', 'a3', 'a4'].map((item) => batcher.run('w1', item));
    const b = batcher.run('w2', 'b1');
    expect(await b).toBe('B1');
    expect(batches).toEqual([
      ['w1', 'a1'],
      ['w2', 'b1'],
    ]);
    expect(batcher.size).toBe(1);
    gate.resolve();
    expect(await Promise.all(a)).toEqual(['A1', 'A2', 'A3', 'A4']);
    expect(batches).toEqual([
      ['w1', 'a1'],
      ['w2', 'b1'],
      ['w1', 'a2', 'a3'],
      ['w1', 'a4'],
    ]);
    expect(batcher.size).toBe(0);
  });

  it('with gatherTurn takes each batch at the next turn of the loop, so work given in one turn runs together', async () => {
    const batches: number[][] = [];
    // A batch that never awaits anything real, like a statement on PGlite: nothing could queue while it runs.
    const batcher = new KeyedBatcher<number, number>(
      async (_key, items) => {
        batches.push([...items]);
        return items.map((n): Settled<number> => ({ ok: true, value: n }));
      },
      3,
      { gatherTurn: true },
    );
    const firstTurn = [1, 2, 3, 4].map((n) => batcher.run('k', n));
    await new Promise<void>((resolve) => setImmediate(resolve));
    const laterTurn = batcher.run('k', 5);
    expect(await Promise.all([...firstTurn, laterTurn])).toEqual([1, 2, 3, 4, 5]);
    // 5 came in the turn before the second batch was taken, and joined it.
    expect(batches).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
    // Without it the first item runs at once, alone.
    const eager: number[][] = [];
    const plain = new KeyedBatcher<number, number>(async (_key, items) => {
      eager.push([...items]);
      return items.map((n): Settled<number> => ({ ok: true, value: n }));
    }, 3);
    await Promise.all([1, 2, 3, 4].map((n) => plain.run('k', n)));
    expect(eager).toEqual([[1], [2, 3, 4]]);
  });

  it('rejects an item its batch left unsettled, and goes on with the key', async () => {
    let first = true;
    const batcher = new KeyedBatcher<number, number>(async (_key, items) => {
      if (!first) return items.map((n): Settled<number> => ({ ok: true, value: n }));
      first = false;
      return new Array<Settled<number>>(items.length);
    }, 4);
    await expect(batcher.run('k', 1)).rejects.toThrow('item 0 of a batch of 1 was not settled');
    expect(await batcher.run('k', 2)).toBe(2);
    expect(batcher.size).toBe(0);
  });

  it("settles each item as its batch says, rejects a thrown batch's items, and goes on with the key", async () => {
    const gate = deferred();
    const batcher = new KeyedBatcher<number, number>(async (_key, items) => {
      if (items[0] === 0) await gate.promise;
      if (items.includes(9)) throw new Error('batch failed');
      return items.map(
        (n): Settled<number> =>
          n % 2 === 0 ? { ok: true, value: n * 10 } : { ok: false, error: new Error(`odd ${n}`) },
      );
    }, 8);
    const first = batcher.run('w', 0);
    const mixed = [batcher.run('w', 1), batcher.run('w', 2)];
    gate.resolve();
    expect(await first).toBe(0);
    await expect(mixed[0]).rejects.toThrow('odd 1');
    expect(await mixed[1]).toBe(20);
    const failed = batcher.run('w', 9);
    await expect(failed).rejects.toThrow('batch failed');
    expect(await batcher.run('w', 4)).toBe(40);
    expect(batcher.size).toBe(0);
  });

  it('refuses a batch that settles a different number of items than it was given', async () => {
    const batcher = new KeyedBatcher<number, number>(async () => [], 4);
    await expect(batcher.run('w', 1)).rejects.toThrow('settled 0');
    expect(() => new KeyedBatcher<number, number>(async () => [], 0)).toThrow(RangeError);
  });
});

describe('settleGroup (decision 430)', () => {
  const logOf = () => {
    const lines: { level: string; message: string; fields: object }[] = [];
    const logger = {
      warn: (fields: object, message: string) => lines.push({ level: 'warn', message, fields }),
      error: (fields: object, message: string) => lines.push({ level: 'error', message, fields }),
    };
    return { lines, log: { noun: 'things', fallback: 'each runs again alone', logger } };
  };
  const rowFailure = Object.assign(new Error('one row refused'), { code: 'P0001' });

  it("answers the group's own settlements when it succeeds, and logs nothing", async () => {
    const { lines, log } = logOf();
    const settled = await settleGroup([1, 2], log, {
      together: async () => [
        { ok: true, value: 'a' },
        { ok: true, value: 'b' },
      ],
      retriable: () => true,
      fallback: async () => [],
    });
    expect(settled).toEqual([
      { ok: true, value: 'a' },
      { ok: true, value: 'b' },
    ]);
    expect(lines).toEqual([]);
  });

  it('runs the fallback when the failure is retriable, so only an item that fails again answers it', async () => {
    const { lines, log } = logOf();
    const settled = await settleGroup([1, 2, 3], log, {
      together: () => Promise.reject(rowFailure),
      retriable: (error) => error === rowFailure,
      fallback: () =>
        settleEach([1, 2, 3], async (n) => {
          if (n === 2) throw rowFailure;
          return n * 10;
        }),
    });
    expect(settled).toEqual([
      { ok: true, value: 10 },
      { ok: false, error: rowFailure },
      { ok: true, value: 30 },
    ]);
    expect(lines.map((l) => [l.level, l.message])).toEqual([
      ['warn', 'a group of things failed on one of them; each runs again alone'],
    ]);
    expect(lines[0]!.fields).toMatchObject({ err: rowFailure, things: 3 });
  });

  it('throws any other failure to every item, logged, and never runs the fallback', async () => {
    const { lines, log } = logOf();
    const bug = new Error('an assertion');
    let fellBack = false;
    await expect(
      settleGroup([1, 2], log, {
        together: () => Promise.reject(bug),
        retriable: () => false,
        fallback: async () => {
          fellBack = true;
          return [];
        },
      }),
    ).rejects.toBe(bug);
    expect(fellBack).toBe(false);
    expect(lines.map((l) => l.level)).toEqual(['error']);
  });
});
