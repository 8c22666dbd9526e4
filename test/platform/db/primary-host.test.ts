// A DATABASE_URL with several hosts (decision 522) becomes one URL per host, target_session_attrs read and dropped;
// a URL with one host is left as it was; the password never shows in messages. bench/failover.ts drills the rest.
import { describe, expect, it } from 'vitest';
import { parseHostList } from '../../../src/platform/db/primary-host.ts';
import { sql } from 'kysely';
import {
  checkPostgresReachable,
  openDatabase,
  redactedUrl,
} from '../../../src/platform/db/database.ts';
import { freePort } from '../../support/net.ts';

describe('several hosts in DATABASE_URL', () => {
  it('splits the hosts, keeps user, database and other options, and reads target_session_attrs', () => {
    expect(
      parseHostList(
        'postgres://cobro:s3cret@db1:5432,db2:5433/cobro?target_session_attrs=read-write&sslmode=require',
      ),
    ).toEqual({
      urls: [
        'postgres://cobro:s3cret@db1:5432/cobro?sslmode=require',
        'postgres://cobro:s3cret@db2:5433/cobro?sslmode=require',
      ],
      readWrite: true,
    });
    expect(parseHostList('postgresql://db1,db2/cobro')).toEqual({
      urls: ['postgresql://db1/cobro', 'postgresql://db2/cobro'],
      readWrite: false,
    });
  });

  it('leaves a one-host URL as it is', () => {
    const url = 'postgres://cobro@db1:5432/cobro?target_session_attrs=read-write';
    expect(parseHostList(url)).toEqual({ urls: [url], readWrite: false });
  });

  it('masks the password of a several-host URL in messages', () => {
    expect(redactedUrl('postgres://cobro:s3cret@db1:5432,db2:5432/cobro')).toBe(
      'postgres://cobro:***@db1:5432,db2:5432/cobro',
    );
  });
});

describe('finding the host that takes writes', () => {
  it('a start with no host answering says so for each host', async () => {
    const [a, b] = [await freePort(), await freePort()];
    await expect(
      checkPostgresReachable(
        `postgres://cobro:s3cret@127.0.0.1:${a},127.0.0.1:${b}/cobro?target_session_attrs=read-write`,
      ),
    ).rejects.toThrow(
      new RegExp(
        `cannot reach a read-write database among postgres://cobro:\\*\\*\\*@127.0.0.1:${a},127.0.0.1:${b}/cobro.*127.0.0.1:${a}/cobro: .*ECONNREFUSED.*127.0.0.1:${b}/cobro: .*ECONNREFUSED`,
      ),
    );
  });

  it.runIf(process.env.DATABASE_URL !== undefined)(
    'skips a host that does not answer and uses the next one',
    async () => {
      const live = new URL(process.env.DATABASE_URL ?? '');
      const url = `postgres://${live.username}@127.0.0.1:${await freePort()},${live.host}${live.pathname}?target_session_attrs=read-write`;
      await checkPostgresReachable(url);
      const handle = await openDatabase({ engine: 'postgres', url, poolSizeMax: 2 });
      try {
        const r = await sql<{ one: number }>`SELECT 1 AS one`.execute(handle.db);
        expect(r.rows[0]?.one).toBe(1);
      } finally {
        await handle.close();
      }
    },
  );
});
