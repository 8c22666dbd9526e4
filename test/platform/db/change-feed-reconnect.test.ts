// The change feed's LISTEN connection across a PostgreSQL restart (decision 420): the feed stops being live and tells
// every listener there was a gap (so copies kept in memory are dropped), reconnects within its bounded backoff, and
// delivers notifications again, after one more gap for what was missed while down. Runs on the PostgreSQL pass, on a
// cluster of the test's own (the shared server is never restarted).
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { postgresChangeFeed } from '../../../src/platform/db/change-feed.ts';
import { limits } from '../../../src/limits/index.ts';
import { ownPostgresSkipReason, startOwnPostgres } from '../../support/own-postgres.ts';

const skipReason =
  process.env.DATABASE_URL === undefined
    ? 'PostgreSQL pass only (DATABASE_URL unset)'
    : ownPostgresSkipReason();

async function until(what: string, ok: () => boolean, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`${what} not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function notify(url: string, payload: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`NOTIFY cobro_test_changes, '${payload}'`);
  } finally {
    await client.end();
  }
}

describe.skipIf(skipReason !== null)(
  `the change feed across a PostgreSQL restart${skipReason === null ? '' : ` (skipped: ${skipReason})`}`,
  () => {
    it('drops what was kept, reconnects within its backoff and delivers again', {
      timeout: 60_000,
    }, async () => {
      const server = await startOwnPostgres();
      const feed = postgresChangeFeed(server.url);
      try {
        const got: Array<string | null> = [];
        feed.on('cobro_test_changes', (payload) => got.push(payload));
        await until('live', () => feed.live(), 10_000);
        await notify(server.url, 'before');
        await until('the first notification', () => got.includes('before'), 5_000);

        got.length = 0;
        await server.restartImmediate();
        // The restart's connection loss is a gap; the feed is not live until it has listened again.
        await until('a gap', () => got.includes(null), 5_000);
        await until('live again', () => feed.live(), limits.changeFeedRetryMsMax + 5_000);
        // Reconnected: one more gap for whatever changed while it was down, then notifications flow again.
        expect(got.filter((p) => p === null).length).toBeGreaterThanOrEqual(2);
        await notify(server.url, 'after');
        await until('a notification after the restart', () => got.includes('after'), 5_000);
      } finally {
        await feed.close();
        await server.dispose();
      }
    });
  },
);
