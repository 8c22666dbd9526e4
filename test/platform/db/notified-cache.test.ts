// The in-memory copy a change feed invalidates (decision 190), against a feed this test drives by hand.
import { describe, expect, it } from 'vitest';
import type { ChangeFeed, ChangeListener } from '../../../src/platform/db/change-feed.ts';
import { NotifiedCache } from '../../../src/platform/db/notified-cache.ts';

function manualFeed(): ChangeFeed & { isLive: boolean; fire(payload: string | null): void } {
  const listeners: ChangeListener[] = [];
  return {
    isLive: true,
    live() {
      return this.isLive;
    },
    on(_channel, changed) {
      listeners.push(changed);
    },
    async close() {},
    fire(payload) {
      for (const l of listeners) l(payload);
    },
  };
}

function counting(value: string | null) {
  const loader = {
    loads: 0,
    load: async () => {
      loader.loads++;
      return value;
    },
  };
  return loader;
}

describe('NotifiedCache', () => {
  it('serves a kept value without loading again, until any notification drops it', async () => {
    const feed = manualFeed();
    const cache = new NotifiedCache<string>(feed, 'c', 10, 60_000);
    const source = counting('v1');
    expect(await cache.get('k', source.load)).toBe('v1');
    expect(await cache.get('k', source.load)).toBe('v1');
    expect(source.loads).toBe(1);
    feed.fire('some-account');
    expect(await cache.get('k', source.load)).toBe('v1');
    expect(source.loads).toBe(2);
  });

  it('keeps nothing read while the feed is not live, and serves nothing kept while it is down', async () => {
    const feed = manualFeed();
    const cache = new NotifiedCache<string>(feed, 'c', 10, 60_000);
    const source = counting('v');
    await cache.get('k', source.load);
    feed.isLive = false;
    await cache.get('k', source.load);
    await cache.get('k', source.load);
    expect(source.loads).toBe(3);
    feed.isLive = true;
    feed.fire(null);
    await cache.get('k', source.load);
    await cache.get('k', source.load);
    expect(source.loads).toBe(4);
  });

  it('does not keep a value whose read was overtaken by a notification (it may be the old row)', async () => {
    const feed = manualFeed();
    const cache = new NotifiedCache<string>(feed, 'c', 10, 60_000);
    let loads = 0;
    const stale = async () => {
      loads++;
      const v = 'old';
      feed.fire('changed meanwhile');
      return v;
    };
    expect(await cache.get('k', stale)).toBe('old');
    const fresh = counting('new');
    expect(await cache.get('k', fresh.load)).toBe('new');
    expect(loads + fresh.loads).toBe(2);
  });

  it('never keeps a missing row, keeps at most entriesMax, and reloads past the age bound', async () => {
    const feed = manualFeed();
    const missing = counting(null);
    const cache = new NotifiedCache<string>(feed, 'c', 2, 60_000);
    await cache.get('gone', missing.load);
    await cache.get('gone', missing.load);
    expect(missing.loads).toBe(2);
    const a = counting('a');
    await cache.get('a', a.load);
    await cache.get('b', counting('b').load);
    await cache.get('c', counting('c').load);
    await cache.get('a', a.load);
    expect(a.loads).toBe(2);
    const aged = new NotifiedCache<string>(feed, 'c', 10, 0);
    const x = counting('x');
    await aged.get('x', x.load);
    await new Promise((r) => setTimeout(r, 5));
    await aged.get('x', x.load);
    expect(x.loads).toBe(2);
  });

  it('peeks exactly what get would serve without loading: nothing before a get, after a notification, with the feed down or past the age bound', async () => {
    const feed = manualFeed();
    const cache = new NotifiedCache<string>(feed, 'c', 10, 60_000);
    expect(cache.peek('k')).toBeUndefined();
    await cache.get('k', counting('v').load);
    expect(cache.peek('k')).toBe('v');
    feed.isLive = false;
    expect(cache.peek('k')).toBeUndefined();
    feed.isLive = true;
    expect(cache.peek('k')).toBe('v');
    feed.fire(null);
    expect(cache.peek('k')).toBeUndefined();
    await cache.get('gone', counting(null).load);
    expect(cache.peek('gone')).toBeUndefined();
    const aged = new NotifiedCache<string>(feed, 'c', 10, 0);
    await aged.get('x', counting('x').load);
    await new Promise((r) => setTimeout(r, 5));
    expect(aged.peek('x')).toBeUndefined();
  });
});
