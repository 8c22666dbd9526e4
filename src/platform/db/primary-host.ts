// DATABASE_URL naming several hosts, as libpq reads it (decision 522): `postgres://u@db1:5432,db2:5432/cobro?
// target_session_attrs=read-write`. node-postgres connects to one host only (its multi-host support is an open pull
// request), so Cobro picks the host: every new connection goes to the host last found read-write; a connection that
// fails, or lands on a host in recovery, makes Cobro ask every host again (one probe at a time) and move to the one
// that accepts writes. After a standby is promoted, the requests of the outage answer 503 (decision 420) and the
// next ones reach the new primary.
import type pg from 'pg';
import { limits } from '../../limits/index.ts';

export interface HostList {
  /** One single-host URL per host, in the order given. */
  readonly urls: readonly string[];
  /** target_session_attrs=read-write (or primary): a host in recovery is not acceptable. */
  readonly readWrite: boolean;
}

const urlShape = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/;

/** The hosts of a DATABASE_URL; a URL with one host is a list of one, as it was. */
export function parseHostList(url: string): HostList {
  const match = urlShape.exec(url);
  const hosts = match?.[3]?.split(',') ?? [];
  if (match === null || hosts.length < 2) return { urls: [url], readWrite: false };
  const [, scheme, userinfo = '', , rest = ''] = match;
  const [pathPart = '', query = ''] = rest.split('?');
  const params = new URLSearchParams(query);
  const attrs = params.get('target_session_attrs');
  // node-postgres would pass an option it does not know on to the server, which refuses it.
  params.delete('target_session_attrs');
  const tail = `${pathPart}${params.size > 0 ? `?${params.toString()}` : ''}`;
  return {
    urls: hosts.map((h) => `${scheme}${userinfo}${h}${tail}`),
    readWrite: attrs === 'read-write' || attrs === 'primary',
  };
}

export interface PrimaryHost {
  /** The URL new connections use now. */
  url(): string;
  /** A connection failed or landed on a host in recovery: probe the hosts again (at most one probe at a time). */
  suspect(): void;
  /** Asks every host in order; the first acceptable one becomes current. Null when one is, else each host's reason. */
  probe(): Promise<string[] | null>;
  /** True when a host in recovery is not acceptable. */
  readonly readWrite: boolean;
}

type PgModule = typeof pg;

const standbyRefusedText = 'the database host is a standby (in recovery): looking for the primary';
/** The error of a connection refused for landing on a standby: an outage (outage.ts), never a 500. */
export const standbyRefused = /^the database host is a standby \(in recovery\)/;

async function acceptable(driver: PgModule, url: string, readWrite: boolean): Promise<string> {
  const client = new driver.Client({
    connectionString: url,
    connectionTimeoutMillis: limits.dbHostProbeTimeoutMs,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    if (!readWrite) return '';
    const r = await client.query<{ recovery: boolean }>('SELECT pg_is_in_recovery() AS recovery');
    return r.rows[0]?.recovery === true ? 'in recovery (a standby)' : '';
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * `url` with the values of its query's secrets masked: libpq's URIs (and node-postgres) take `password` there too,
 * and `sslpassword` unlocks an encrypted client key (decision 795).
 */
export function withoutQuerySecrets(url: string): string {
  return url.replace(/([?&](?:ssl)?password=)[^&#]*/gi, '$1***');
}

export function primaryHost(driver: PgModule, list: HostList): PrimaryHost {
  let current = 0;
  let probing: Promise<string[] | null> | null = null;
  const probe = (): Promise<string[] | null> => {
    probing ??= (async () => {
      const reasons: string[] = [];
      for (const [i, url] of list.urls.entries()) {
        const reason = await acceptable(driver, url, list.readWrite);
        if (reason === '') {
          current = i;
          return null;
        }
        reasons.push(`${withoutQuerySecrets(url.replace(/\/\/[^@/]*@/, '//'))}: ${reason}`);
      }
      return reasons;
    })().finally(() => {
      probing = null;
    });
    return probing;
  };
  return {
    url: () => list.urls[current] ?? list.urls[0]!,
    suspect: () => {
      if (list.urls.length > 1) void probe();
    },
    probe,
    readWrite: list.readWrite,
  };
}

/**
 * The pool's client class: each new connection goes to the current host, and one that cannot connect, or connects to
 * a host in recovery when writes are wanted, is refused and sends Cobro looking for the primary again.
 */
export function clientForPrimary(driver: PgModule, primary: PrimaryHost): typeof pg.Client {
  return class PrimaryClient extends driver.Client {
    constructor(config?: pg.ClientConfig) {
      super({ ...config, connectionString: primary.url() });
    }
    // Both of pg's forms: the pool passes a callback, a caller may await the promise.
    override connect(callback?: unknown): never {
      const checked = (async () => {
        try {
          await super.connect();
          if (!primary.readWrite) return this;
          const r = await this.query<{ recovery: boolean }>(
            'SELECT pg_is_in_recovery() AS recovery',
          );
          if (r.rows[0]?.recovery === true) {
            await this.end().catch(() => {});
            throw new Error(standbyRefusedText);
          }
          return this;
        } catch (error) {
          primary.suspect();
          throw error;
        }
      })();
      if (typeof callback !== 'function') return checked as never;
      const done = callback as (err: Error | null, client?: pg.Client) => void;
      checked.then(
        (client) => done(null, client),
        (error: Error) => done(error),
      );
      return undefined as never;
    }
  };
}
