// Group commit per key (decision 220): the work that arrives for one key while that key's previous batch runs is
// handed to the next run as one batch, in arrival order. A performance device, never a guarantee: the database's
// row locks are what keep money safe, across processes too. Its use: every payout of one hot wallet serialises on
// the wallet's row lock; one transaction that takes the lock once and writes the queued payouts one after another
// pays one lock round trip and one commit (one fsync) for all of them instead of one each. Nothing waits for a
// batch to fill: the first item runs at once, alone, and only items that would have queued anyway are grouped.
// Except on an engine that runs its statements on the event loop (PGlite, decision 400): there nothing can queue
// while a statement runs, since no request is read until it ends, so each batch is taken one turn of the loop
// later (`gatherTurn`), after the requests already on the sockets have been read and queued.

import type { Engine } from '../db/database.ts';

/**
 * The options an engine's batchers take: on PGlite, whose statements run on the event loop, each batch is gathered
 * one turn later (decision 400); on PostgreSQL at once.
 */
export function batchingFor(engine: Engine): { readonly gatherTurn: boolean } {
  return { gatherTurn: engine === 'pglite' };
}

export type Settled<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: unknown };

/**
 * Runs one batch of one key and settles every item of it, in order (one settlement per item). A throw settles
 * the whole batch with that error.
 */
export type BatchRun<I, O> = (key: string, items: readonly I[]) => Promise<readonly Settled<O>[]>;

/** Runs each item by itself, in order, settling each with its own answer or error: a failed batch's fallback. */
export async function settleEach<I, O>(
  items: readonly I[],
  run: (item: I) => Promise<O>,
): Promise<Settled<O>[]> {
  const settled: Settled<O>[] = [];
  for (const item of items) {
    try {
      settled.push({ ok: true, value: await run(item) });
    } catch (error) {
      settled.push({ ok: false, error });
    }
  }
  return settled;
}

/**
 * What a group's failure is logged with: the items' noun ("creates", "payouts"), what the fallback does with them
 * ("each runs again alone"), and the logger.
 */
export interface GroupFailureLog {
  readonly noun: string;
  readonly fallback: string;
  readonly logger: {
    warn(fields: object, message: string): void;
    error(fields: object, message: string): void;
  };
}

/**
 * A group's run with decision 430's rule for its failure. When `retriable` says the failure is one item's or the
 * database's (nothing of the group was written, or only its answer was lost), `fallback` settles the items (as a
 * rule each again alone), so only an item that fails again answers its failure; any other failure (an assertion,
 * a bug) is logged and thrown to every item, never hidden behind items that then succeed one by one.
 */
export async function settleGroup<I, O>(
  items: readonly I[],
  log: GroupFailureLog,
  run: {
    readonly together: () => Promise<readonly Settled<O>[]>;
    readonly retriable: (error: unknown) => boolean;
    readonly fallback: () => Promise<readonly Settled<O>[]>;
  },
): Promise<readonly Settled<O>[]> {
  try {
    return await run.together();
  } catch (error) {
    const fields = { err: error, [log.noun]: items.length };
    if (!run.retriable(error)) {
      log.logger.error(
        fields,
        `a group of ${log.noun} failed; each of its requests answers the error`,
      );
      throw error;
    }
    log.logger.warn(fields, `a group of ${log.noun} failed on one of them; ${log.fallback}`);
    return run.fallback();
  }
}

interface Waiting<I, O> {
  readonly item: I;
  readonly resolve: (value: O) => void;
  readonly reject: (error: unknown) => void;
}

export class KeyedBatcher<I, O> {
  readonly #queues = new Map<string, Waiting<I, O>[]>();
  readonly #runBatch: BatchRun<I, O>;
  readonly #batchMax: number;
  readonly #gatherTurn: boolean;

  /**
   * `batchMax` bounds a batch, and so the time its transaction holds its locks. With `gatherTurn` each batch is
   * taken at the loop's next turn (setImmediate) rather than at once.
   */
  constructor(
    runBatch: BatchRun<I, O>,
    batchMax: number,
    options: { readonly gatherTurn?: boolean } = {},
  ) {
    if (!Number.isInteger(batchMax) || batchMax < 1)
      throw new RangeError('batchMax must be a positive integer');
    this.#runBatch = runBatch;
    this.#batchMax = batchMax;
    this.#gatherTurn = options.gatherTurn === true;
  }

  /** Keys with work running or queued (bounded by the requests in flight). */
  get size(): number {
    return this.#queues.size;
  }

  /** Whether `key` has a batch running or items queued. */
  has(key: string): boolean {
    return this.#queues.has(key);
  }

  /** Items waiting for a batch (not those of the batches running). */
  get queued(): number {
    let waiting = 0;
    for (const queue of this.#queues.values()) waiting += queue.length;
    return waiting;
  }

  run(key: string, item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      const queue = this.#queues.get(key);
      if (queue !== undefined) {
        queue.push({ item, resolve, reject });
        return;
      }
      this.#queues.set(key, [{ item, resolve, reject }]);
      void this.#drain(key);
    });
  }

  async #drain(key: string): Promise<void> {
    for (;;) {
      if (this.#gatherTurn) await new Promise<void>((resolve) => setImmediate(resolve));
      const queue = this.#queues.get(key)!;
      if (queue.length === 0) {
        this.#queues.delete(key);
        return;
      }
      const batch = queue.splice(0, this.#batchMax);
      let settled: readonly Settled<O>[];
      try {
        settled = await this.#runBatch(
          key,
          batch.map((w) => w.item),
        );
        if (settled.length !== batch.length)
          throw new Error(`a batch of ${batch.length} settled ${settled.length}`);
      } catch (error) {
        settled = batch.map(() => ({ ok: false, error }));
      }
      batch.forEach((w, i) => {
        const s: Settled<O> | undefined = settled[i];
        if (s?.ok === true) w.resolve(s.value);
        else
          w.reject(
            s === undefined
              ? new Error(`item ${i} of a batch of ${batch.length} was not settled`)
              : s.error,
          );
      });
    }
  }
}
