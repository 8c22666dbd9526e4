// Decision 685: Failover when the primary's host vanishes instead of refusing (docs/operations.md "Failover", decision 522): a
// crashed or partitioned machine sends no RST, so a connection to it neither fails nor answers. The drill in
// bench/failover.ts kills the primary's process (its kernel still answers with RST) and never sees this case.
// Here a real `cobro serve` runs on DATABASE_URL naming two hosts, each a TCP relay to the suite's PostgreSQL: the
// first is the primary, the second refuses (a standby not yet promoted). The first then goes silent (bytes
// swallowed, connections kept open, new ones accepted and never answered) and the second starts relaying (the
// standby promoted). The docs promise 503 while no primary answers, then the new primary's answers: "When the
// primary dies, requests answer 503 ... until the standby is promoted; then new connections reach it".
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../../support/cli.ts';
import { cloneTestDatabase, type TestDatabaseHandle } from '../../support/database.ts';
import { freePort } from '../../support/net.ts';
import { tcpRelay as relay } from '../../support/tcp-relay.ts';

const onPostgres = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '';

async function readyz(baseUrl: string, timeoutMs: number): Promise<number | string> {
  try {
    const res = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(timeoutMs) });
    return res.status;
  } catch (error) {
    return `no answer within ${timeoutMs} ms (${String(error)})`;
  }
}

describe.runIf(onPostgres)('failover when the primary host goes silent', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {});
  });

  it('answers 503 while no primary answers, then serves from the promoted standby', {
    timeout: 90_000,
  }, async () => {
    const database: TestDatabaseHandle = await cloneTestDatabase();
    cleanups.push(() => database.close());
    const target = new URL(database.url!);
    const upstream = { host: target.hostname, port: Number(target.port || 5432) };
    const [portA, portB, httpPort] = [await freePort(), await freePort(), await freePort()];
    const primary = relay(portA, upstream);
    await primary.listen();
    cleanups.push(() => primary.close());
    const standby = relay(portB, upstream);

    const user = target.username === '' ? '' : `${target.username}@`;
    const url = `postgres://${user}127.0.0.1:${portA},127.0.0.1:${portB}${target.pathname}?target_session_attrs=read-write`;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-failover-'));
    cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
    const server: ServeProcess = await startServe({
      DATABASE_URL: url,
      DATA_DIR: dataDir,
      PORT: String(httpPort),
      COBRO_MODE: 'sandbox',
      RATE_LIMIT_PER_MINUTE: '0',
    });
    cleanups.push(() => server.stop());
    const baseUrl = `http://127.0.0.1:${httpPort}`;
    // The pool holds connections to the primary.
    for (let i = 0; i < 5; i++) expect(await readyz(baseUrl, 5000)).toBe(200);

    // The primary's host vanishes: no RST, nothing answers.
    primary.goSilent();
    const duringOutage = await readyz(baseUrl, 10_000);
    // The standby is promoted.
    await standby.listen();
    cleanups.push(() => standby.close());
    let afterPromotion: number | string = 'not asked';
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      afterPromotion = await readyz(baseUrl, 5000);
      if (afterPromotion === 200) break;
    }
    expect({ duringOutage, afterPromotion }).toEqual({ duringOutage: 503, afterPromotion: 200 });
  });
});
