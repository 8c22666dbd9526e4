// Change notifications from the database (LISTEN/NOTIFY, the same on PGlite and PostgreSQL), so a process may keep
// a copy of rows in memory and drop it the moment another process, the CLI or an operator changes them. A copy is
// safe to keep only while the feed is live: `changed(null)` says notifications may have been missed (the listening
// connection dropped, or has just been established) and everything kept must go.
import type pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';
import { limits } from '../../limits/index.ts';

export type ChangeListener = (payload: string | null) => void;

export interface ChangeFeed {
  /** True while every notification on the subscribed channels reaches the listeners. */
  live(): boolean;
  /** Listens on `channel` (starting the feed on first use): `changed(payload)` per notification, `changed(null)` on a gap. */
  on(channel: string, changed: ChangeListener): void;
  close(): Promise<void>;
}

const channelPattern = /^[a-z_][a-z0-9_]{0,62}$/;

function checkedChannel(channel: string): string {
  if (!channelPattern.test(channel))
    throw new Error(`change channel ${channel} is not a plain identifier`);
  return channel;
}

class Listeners {
  readonly byChannel = new Map<string, ChangeListener[]>();
  add(channel: string, changed: ChangeListener): boolean {
    const list = this.byChannel.get(channel);
    if (list !== undefined) {
      list.push(changed);
      return false;
    }
    this.byChannel.set(channel, [changed]);
    return true;
  }
  notify(channel: string, payload: string): void {
    for (const l of this.byChannel.get(channel) ?? []) l(payload);
  }
  gap(): void {
    for (const list of this.byChannel.values()) for (const l of list) l(null);
  }
}

/** PGlite: one instance in this process; its notifications never drop, so the feed is live once LISTEN ran. */
export function pgliteChangeFeed(pglite: PGlite): ChangeFeed {
  const listeners = new Listeners();
  let pending = 0;
  const unlisten: Array<() => Promise<void>> = [];
  return {
    live: () => pending === 0 && listeners.byChannel.size > 0,
    on(channel, changed) {
      if (!listeners.add(checkedChannel(channel), changed)) return;
      pending++;
      void pglite
        .listen(channel, (payload) => listeners.notify(channel, payload))
        .then(
          (stop) => {
            unlisten.push(stop);
            pending--;
            listeners.gap();
          },
          () => {
            /* a closed instance: never live */
          },
        );
    },
    async close() {
      for (const stop of unlisten.splice(0)) await stop().catch(() => {});
    },
  };
}

/** The feed's own client, not yet connected: its notifications go to `listeners`, its failure or end to `lost`. */
async function feedClient(
  url: () => string,
  listeners: Listeners,
  lost: (c: pg.Client) => void,
): Promise<pg.Client> {
  // Only PostgreSQL's feed needs the driver: an embedded database's process never loads it (decision 240).
  const { default: pg } = await import('pg');
  // Keep-alive so a connection that silently died (no FIN) is noticed, and the feed stops being live.
  const c = new pg.Client({
    connectionString: url(),
    connectionTimeoutMillis: limits.dbStartupConnectTimeoutMs,
    keepAlive: true,
  });
  c.on('error', () => lost(c));
  c.on('end', () => lost(c));
  c.on('notification', (m) => {
    if (m.payload !== undefined) listeners.notify(m.channel, m.payload);
  });
  return c;
}

/**
 * PostgreSQL: a dedicated connection (a pooled one would be handed to queries), reconnected with backoff. While it
 * is down the feed is not live, so nothing is kept and every lookup goes to the database.
 */
export function postgresChangeFeed(url: string | (() => string)): ChangeFeed {
  const listeners = new Listeners();
  let client: pg.Client | null = null;
  let live = false;
  let closed = false;
  let starting = false;
  /** Channels whose LISTEN is on its way over the running connection. */
  let adding = 0;
  let retryMs: number = limits.changeFeedRetryMsMin;
  let retryTimer: NodeJS.Timeout | null = null;

  const scheduleRetry = () => {
    if (closed || retryTimer !== null) return;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      void connect();
    }, retryMs);
    retryTimer.unref();
    retryMs = Math.min(retryMs * 2, limits.changeFeedRetryMsMax);
  };
  const lost = (c: pg.Client) => {
    if (client !== c) return;
    client = null;
    live = false;
    listeners.gap();
    c.end().catch(() => {});
    scheduleRetry();
  };
  async function connect(): Promise<void> {
    if (closed || client !== null || starting) return;
    starting = true;
    const c = await feedClient(typeof url === 'string' ? () => url : url, listeners, lost);
    try {
      await c.connect();
      client = c;
      for (const channel of listeners.byChannel.keys()) await c.query(`LISTEN ${channel}`);
      if (closed) {
        await c.end();
        return;
      }
      if (client !== c) return;
      live = true;
      retryMs = limits.changeFeedRetryMsMin;
      // Whatever was read before LISTEN took effect may already be stale.
      listeners.gap();
    } catch {
      if (client === c) lost(c);
      else {
        c.end().catch(() => {});
        scheduleRetry();
      }
    } finally {
      starting = false;
    }
  }

  return {
    live: () => live && adding === 0,
    on(channel, changed) {
      if (!listeners.add(checkedChannel(channel), changed)) return;
      const c = client;
      if (c === null) return void connect();
      // A channel added to a running connection: the feed is not live until its LISTEN ran, so nothing is kept
      // meanwhile. The other channels stay live: what they keep is still current, so no gap and no reconnect (a
      // reconnect would keep nothing for the retry's half second).
      adding++;
      c.query(`LISTEN ${channel}`).then(
        () => {
          adding--;
        },
        () => {
          adding--;
          lost(c);
        },
      );
    },
    async close() {
      closed = true;
      live = false;
      if (retryTimer !== null) clearTimeout(retryTimer);
      const c = client;
      client = null;
      await c?.end().catch(() => {});
    },
  };
}
