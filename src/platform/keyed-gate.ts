// One piece of work per key at a time in this process, in arrival order. A performance gate, never a guarantee:
// the database's row locks are what keep money safe, across processes too. Its use: sixteen payouts of one wallet
// all waiting on the wallet's row lock in PostgreSQL are woken together at every commit and all but one go back to
// sleep, a herd that takes the two cores from the one that holds the lock. Queued here instead, at most one
// request per process waits on the row, and it is already waiting when the lock is released.
export class KeyedGate {
  readonly #tails = new Map<string, Promise<void>>();

  /** Keys with work running or queued (the map holds nothing else, so it is bounded by the requests in flight). */
  get size(): number {
    return this.#tails.size;
  }

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key);
    let release!: () => void;
    const mine = new Promise<void>((resolve) => { release = resolve; });
    const tail = previous === undefined ? mine : previous.then(() => mine);
    this.#tails.set(key, tail);
    if (previous !== undefined) await previous;
    try {
      return await work();
    } finally {
      release();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }
}
