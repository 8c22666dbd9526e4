// Change notifications from the database (LISTEN/NOTIFY, the same on PGlite and PostgreSQL), so a process may keep
// a copy of rows in memory and drop it the moment another process, the CLI or an operator changes them. A copy is
// safe to keep only while the feed is live: `changed(null)` says notifications may have been missed (the listening
// connection dropped, or has just been established) and everything kept must go.
import type pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';
import { limits } from '../../limits/index.ts';
import { sessionName } from './session-name.ts';

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
    application_name: sessionName,
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
 * is down the feed is not live, so nothing is kept and every lookup goes to the database. The connection is asked
 * a question every few seconds: one dropped without a word answers nothing, and counts as lost (decision 950).
 */
export function postgresChangeFeed(url: string | (() => string)): ChangeFeed {
  return new PostgresFeed(typeof url === 'string' ? () => url : url);
}

/** One PostgreSQL feed's state: its connection, whether it is live, and the backoff before the next attempt. */
class PostgresFeed implements ChangeFeed {
  readonly #url: () => string;
  readonly #listeners = new Listeners();
  #client: pg.Client | null = null;
  #live = false;
  #closed = false;
  #starting = false;
  /** Channels whose LISTEN is on its way over the running connection. */
  #adding = 0;
  #retryMs: number = limits.changeFeedRetryMsMin;
  #retryTimer: NodeJS.Timeout | null = null;
  /** The live connection's next check (`SELECT 1`), or the wait for its answer. */
  #checkTimer: NodeJS.Timeout | null = null;

  constructor(url: () => string) {
    this.#url = url;
  }

  live(): boolean {
    return this.#live && this.#adding === 0;
  }

  on(channel: string, changed: ChangeListener): void {
    if (!this.#listeners.add(checkedChannel(channel), changed)) return;
    const c = this.#client;
    if (c === null) return void this.#connect();
    // A channel added to a running connection: the feed is not live until its LISTEN ran, so nothing is kept
    // meanwhile. The other channels stay live: what they keep is still current, so no gap and no reconnect (a
    // reconnect would keep nothing for the retry's half second).
    this.#adding++;
    c.query(`LISTEN ${channel}`).then(
      () => {
        this.#adding--;
      },
      () => {
        this.#adding--;
        this.#lost(c);
      },
    );
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#live = false;
    if (this.#retryTimer !== null) clearTimeout(this.#retryTimer);
    this.#stopChecks();
    const c = this.#client;
    this.#client = null;
    await c?.end().catch(() => {});
  }

  /** Opens a connection and LISTENs on every channel; a failure schedules the next attempt. */
  async #connect(): Promise<void> {
    if (this.#closed || this.#client !== null || this.#starting) return;
    this.#starting = true;
    const c = await feedClient(this.#url, this.#listeners, (lostClient) => this.#lost(lostClient));
    try {
      await c.connect();
      this.#client = c;
      for (const channel of this.#listeners.byChannel.keys()) await c.query(`LISTEN ${channel}`);
      if (this.#closed) {
        await c.end();
        return;
      }
      if (this.#client === c) this.#becomeLive();
    } catch {
      if (this.#client === c) this.#lost(c);
      else {
        c.end().catch(() => {});
        this.#scheduleRetry();
      }
    } finally {
      this.#starting = false;
    }
  }

  #becomeLive(): void {
    this.#live = true;
    this.#retryMs = limits.changeFeedRetryMsMin;
    // Whatever was read before LISTEN took effect may already be stale.
    this.#listeners.gap();
    this.#scheduleCheck();
  }

  /**
   * The LISTEN connection sends nothing of its own, so a peer that vanished without a FIN or RST (a NAT or load
   * balancer forgetting an idle flow, a host gone in a failover) would leave it "live" for the kernel's keep-alive,
   * two hours, while no notification arrives. A `SELECT 1` every changeFeedCheckIntervalMs, answered within
   * changeFeedAnswerMsMax or the connection is lost: what was kept goes and a new connection listens (decision 950).
   */
  #scheduleCheck(): void {
    const c = this.#client;
    if (this.#closed || c === null) return;
    this.#checkTimer = setTimeout(() => {
      this.#checkTimer = setTimeout(() => this.#lost(c), limits.changeFeedAnswerMsMax);
      this.#checkTimer.unref();
      c.query('SELECT 1').then(
        () => {
          if (this.#client !== c) return;
          this.#stopChecks();
          this.#scheduleCheck();
        },
        () => this.#lost(c),
      );
    }, limits.changeFeedCheckIntervalMs);
    this.#checkTimer.unref();
  }

  #stopChecks(): void {
    if (this.#checkTimer !== null) clearTimeout(this.#checkTimer);
    this.#checkTimer = null;
  }

  /** The connection `c` failed or ended: not live, everything kept goes, and a new connection is scheduled. */
  #lost(c: pg.Client): void {
    if (this.#client !== c) return;
    this.#client = null;
    this.#live = false;
    this.#stopChecks();
    this.#listeners.gap();
    // A check still waiting for its answer makes end() destroy the socket rather than wait on a silent peer.
    c.end().catch(() => {});
    this.#scheduleRetry();
  }

  #scheduleRetry(): void {
    if (this.#closed || this.#retryTimer !== null) return;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = null;
      void this.#connect();
    }, this.#retryMs);
    this.#retryTimer.unref();
    this.#retryMs = Math.min(this.#retryMs * 2, limits.changeFeedRetryMsMax);
  }
}
