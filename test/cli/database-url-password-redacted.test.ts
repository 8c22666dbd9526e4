// Decision 795: a DATABASE_URL may carry its password as a query parameter, as libpq's URIs allow and node-postgres
// reads (`postgres://cobro@db/cobro?password=...`, also `sslpassword` for an encrypted client key). Before, only the
// password of the URL's user part was masked: the query's was printed whole in `cannot reach the database at ...` on
// stderr and in the `opening PostgreSQL at ...` line of every start's log.
import net from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { redactedUrl } from '../../src/platform/db/database.ts';
import { runCli } from '../support/cli.ts';

vi.setConfig({ testTimeout: 120_000 });

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('a DATABASE_URL with its password in the query string', () => {
  it('is masked in messages, on one host and on several', () => {
    expect(redactedUrl('postgres://cobro@db1:5432/cobro?password=s3cret&sslmode=require')).toBe(
      'postgres://cobro@db1:5432/cobro?password=***&sslmode=require',
    );
    expect(redactedUrl('postgresql://cobro@db1/cobro?sslpassword=k3y')).toBe(
      'postgresql://cobro@db1/cobro?sslpassword=***',
    );
    expect(
      redactedUrl(
        'postgres://cobro:s3cret@db1:5432,db2:5432/cobro?target_session_attrs=read-write&password=s3cret',
      ),
    ).toBe(
      'postgres://cobro:***@db1:5432,db2:5432/cobro?target_session_attrs=read-write&password=***',
    );
  });

  it('an unreachable database: the one line on stderr names it without the password', async () => {
    const port = await closedPort();
    const url = `postgres://cobro@127.0.0.1:${port}/cobro?password=s3cret&sslpassword=k3y`;
    for (const args of [['migrate'], ['accounts', 'list']]) {
      const out = await runCli(args, { DATABASE_URL: url });
      expect(out.code).toBe(1);
      expect(out.stderr).toMatch(
        /^cobro: cannot reach the database at postgres:\/\/cobro@127\.0\.0\.1/,
      );
      expect(out.stderr).not.toContain('s3cret');
      expect(out.stderr).not.toContain('k3y');
    }
  });

  it('several hosts, none answering: each host named in the reasons without the password', async () => {
    const [a, b] = [await closedPort(), await closedPort()];
    const url = `postgres://cobro@127.0.0.1:${a},127.0.0.1:${b}/cobro?password=s3cret`;
    const out = await runCli(['migrate'], { DATABASE_URL: url });
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/^cobro: cannot reach a database among /);
    expect(out.stderr).not.toContain('s3cret');
  });
});
