// A bounded in-memory copy of rows that a change feed invalidates: an entry is served only while the feed is live
// and is dropped whole on any notification of its channel. A read that started before a notification is never
// kept after it (the generation check), so a change committed elsewhere cannot be overwritten by a stale copy.
import { performance } from 'node:perf_hooks';
import type { ChangeFeed } from './change-feed.ts';

interface Entry<V> {
  readonly value: V;
  readonly keptAtMs: number;
}

export class NotifiedCache<V> {
  #entries = new Map<string, Entry<V>>();
  #generation = 0;
  #listening = false;

  readonly #feed: ChangeFeed;
  readonly #channel: string;
  readonly #entriesMax: number;
  readonly #entryAgeMsMax: number;

  constructor(feed: ChangeFeed, channel: string, entriesMax: number, entryAgeMsMax: number) {
    this.#feed = feed;
    this.#channel = channel;
    this.#entriesMax = entriesMax;
    this.#entryAgeMsMax = entryAgeMsMax;
  }

  /** Drops every kept value, and any read already in flight will not be kept either. */
  forget(): void {
    this.#generation++;
    this.#entries.clear();
  }

  /**
   * The kept value when `get` would serve it without loading (the feed live, the entry young enough), else
   * undefined: a hot path's answer without a promise (decision 320). Nothing is loaded or kept.
   */
  peek(key: string): V | undefined {
    const kept = this.#entries.get(key);
    return kept !== undefined &&
      this.#feed.live() &&
      performance.now() - kept.keptAtMs <= this.#entryAgeMsMax
      ? kept.value
      : undefined;
  }

  /** The kept value, or the loader's, kept when the feed was live throughout and nothing changed meanwhile. */
  async get(key: string, load: () => Promise<V | null>): Promise<V | null> {
    if (!this.#listening) {
      this.#listening = true;
      this.#feed.on(this.#channel, () => this.forget());
    }
    const served = this.peek(key);
    if (served !== undefined) return served;
    this.#entries.delete(key);
    const generation = this.#generation;
    const wasLive = this.#feed.live();
    const value = await load();
    if (value !== null && wasLive && this.#feed.live() && generation === this.#generation) {
      // Oldest first out: a Map iterates in insertion order.
      if (this.#entries.size >= this.#entriesMax)
        this.#entries.delete(this.#entries.keys().next().value!);
      this.#entries.set(key, { value, keptAtMs: performance.now() });
    }
    return value;
  }
}
