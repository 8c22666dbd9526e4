// Cobro's own figures on one engine, each route through real HTTP to a real `cobro serve` process: creating
// transactions, reading the wallet and the bank catalogue, payouts on one hot wallet and over 50 wallets, paying
// transactions at the checkout, delivering their callbacks, settling them, the cold start and the peak RSS.
import { performance } from 'node:perf_hooks';
import {
  runLoad,
  runMeasuredLoad,
  warmupRequestsFor,
  watchRss,
  type MeasuredLoad,
} from '../support/load.ts';
import { startCobro } from '../support/processes.ts';
import { startReceiver } from '../support/receiver.ts';
import { prepareDatabase, type BenchAccount, type BenchEngine } from '../support/setup.ts';
import {
  getJson,
  payByCard,
  payoutBody,
  payoutMinor,
  postJson,
  transactionBody,
} from '../support/client.ts';

export interface CobroSizes {
  readonly requests: number;
  readonly staticReads: number;
  readonly payouts: number;
  readonly payments: number;
  readonly callbacks: number;
  readonly concurrency: number;
}

export interface CobroFigures {
  readonly coldStartMs: number;
  readonly warmStartMs: number;
  /** Spawn to /readyz after a kill -9 in the middle of a load of creates (issue 13 point 3); null: never ready. */
  readonly killRestartMs: number | null;
  readonly peakRssMb: number | null;
  readonly createTransaction: MeasuredLoad;
  readonly getWallet: MeasuredLoad;
  /** The same read spread over 50 merchants' wallets: no two concurrent reads are of one page (decision 625). */
  readonly getWallet50: MeasuredLoad;
  readonly getBanks: MeasuredLoad;
  readonly hotWalletPayouts: MeasuredLoad & {
    readonly fundedFor: number;
    readonly overdraft: boolean;
  };
  readonly payouts50Wallets: MeasuredLoad;
  readonly paymentSuccess: MeasuredLoad;
  readonly callbacks: { readonly delivered: number; readonly perSecond: number | null };
  /** The warm-up payments settled by the fresh server's first request. */
  readonly settlementFirst: Settlement;
  /** The measured payments settled by its second. */
  readonly settlement: Settlement;
  readonly ledgerClean: boolean;
}

const spreadWallets = 50;
const callbacksTimeoutMs = 120_000;
/** Long enough for the creates to be mid-flight (and, on PGlite, writing its WAL) when the kill lands. */
const killAfterMs = 300;
const hot = 1;
const payer = 2 + spreadWallets;
/** A wallet of its own for the payouts that warm the server up, so the hot wallet's funds stay exactly as planned. */
const warmupWallet = payer + 1;
/** An account of its own for the payments that warm the server up, and so for the settlement that warms it up. */
const warmupPayer = warmupWallet + 1;

const succeeded = (r: { status: number; body: any }) =>
  r.status === 200 && r.body?.status === 'success';
/** A created transaction answers `pending` with its checkout url (seed). */
const created = (r: { status: number; body: any }) =>
  r.status === 200 && r.body?.status === 'pending' && typeof r.body?.url === 'string';

/** Payments settled by one sandbox clock advance of an account (3 days: past every availability date). */
interface Settlement {
  readonly settled: number;
  readonly ms: number;
  readonly perSecond: number;
}

async function settleByAdvance(url: string, payerAccount: BenchAccount): Promise<Settlement> {
  const started = performance.now();
  const advanced = await postJson(url, payerAccount, '/api/sandbox/clock/advance', { days: 3 });
  const ms = Math.max(1, Math.round(performance.now() - started));
  if (!succeeded(advanced))
    throw new Error(`clock advance refused: ${JSON.stringify(advanced.body)}`);
  const settled = Number(advanced.body.processed?.['transaction-settlement'] ?? 0);
  return { settled, ms, perSecond: Math.round((settled / ms) * 1000) };
}

export async function measureCobro(
  engine: BenchEngine,
  postgresUrl: string,
  sizes: CobroSizes,
): Promise<CobroFigures> {
  // The hot wallet holds funds for four payouts in five: the rest must be refused, never overdrawn.
  const fundedFor = Math.floor((sizes.payouts * 4) / 5);
  const database = await prepareDatabase({
    engine,
    postgresUrl,
    accounts: warmupPayer + 1,
    walletMinorOf: (i) =>
      i === hot
        ? BigInt(payoutMinor * fundedFor)
        : i > hot && i < payer
          ? BigInt(payoutMinor * sizes.payouts)
          : i === warmupWallet
            ? BigInt(payoutMinor * warmupRequestsFor(sizes.payouts))
            : 0n,
  });
  const receiver = await startReceiver();
  const account = (i: number): BenchAccount => database.accounts[i]!;
  const c = sizes.concurrency;
  try {
    const server = await startCobro({ ...database.env, COBRO_WORKERS: '0' });
    const rss = watchRss(server.pid);
    const base = server.url;
    const warmup = warmupRequestsFor(sizes.requests);
    await runLoad(warmup, c, async (i) =>
      created(
        await postJson(
          base,
          account(0),
          '/api/transaction',
          transactionBody(i, { order: `warmup-${i}` }),
        ),
      ),
    );
    const createTransaction = await runMeasuredLoad([server.pid], sizes.requests, c, async (i) =>
      created(await postJson(base, account(0), '/api/transaction', transactionBody(i))),
    );
    await runLoad(
      warmup,
      c,
      async () => (await getJson(base, account(0), '/api/wallet', true)).status === 200,
    );
    const getWallet = await runMeasuredLoad(
      [server.pid],
      sizes.requests,
      c,
      async () => (await getJson(base, account(0), '/api/wallet', true)).status === 200,
    );
    const readSpread = async (i: number) =>
      (await getJson(base, account(hot + 1 + (i % spreadWallets)), '/api/wallet', true)).status ===
      200;
    await runLoad(warmup, c, readSpread);
    const getWallet50 = await runMeasuredLoad([server.pid], sizes.requests, c, readSpread);
    await runLoad(warmup, c, async () => (await getJson(base, null, '/api/banks')).status === 200);
    const getBanks = await runMeasuredLoad(
      [server.pid],
      sizes.staticReads,
      c,
      async () => (await getJson(base, null, '/api/banks')).status === 200,
    );
    await runLoad(warmupRequestsFor(sizes.payouts), c, async (i) =>
      succeeded(await postJson(base, account(warmupWallet), '/api/wallet/payout', payoutBody(i))),
    );
    const hotLoad = await runMeasuredLoad([server.pid], sizes.payouts, c, async (i) =>
      succeeded(await postJson(base, account(hot), '/api/wallet/payout', payoutBody(i))),
    );
    const payouts50Wallets = await runMeasuredLoad([server.pid], sizes.payouts, c, async (i) =>
      succeeded(
        await postJson(
          base,
          account(hot + 1 + (i % spreadWallets)),
          '/api/wallet/payout',
          payoutBody(i),
        ),
      ),
    );
    const checkoutUrls: string[] = [];
    for (let i = 0; i < sizes.payments; i++) {
      const res = await postJson(
        base,
        account(payer),
        '/api/transaction',
        transactionBody(i, { urlnotify: receiver.url, urlreturn: 'http://127.0.0.1/return' }),
      );
      if (!created(res))
        throw new Error(`transaction for payment ${i} refused: ${JSON.stringify(res.body)}`);
      checkoutUrls.push(String(res.body.url));
    }
    // Paid on another account and without a callback URL, so the callbacks counted below are the measured payments'.
    const warmupUrls: string[] = [];
    for (let i = 0; i < warmupRequestsFor(sizes.payments); i++) {
      const res = await postJson(
        base,
        account(warmupPayer),
        '/api/transaction',
        transactionBody(i, { order: `warmup-pay-${i}`, urlreturn: 'http://127.0.0.1/return' }),
      );
      if (!created(res))
        throw new Error(
          `transaction for warm-up payment ${i} refused: ${JSON.stringify(res.body)}`,
        );
      warmupUrls.push(String(res.body.url));
    }
    await runLoad(warmupUrls.length, c, (i) => payByCard(base, warmupUrls[i]!));
    const paymentSuccess = await runMeasuredLoad([server.pid], sizes.payments, c, (i) =>
      payByCard(base, checkoutUrls[i]!),
    );
    const peakRssMb = await rss.stop();
    await server.stop();
    // The same database again, workers on: the outbox holds one callback per payment to deliver, and more put there
    // directly, so the rate is measured over seconds of steady delivery rather than the first few hundred ms.
    await database.seedCallbacks(account(payer).id, receiver.url, sizes.callbacks);
    const callbacksExpected = sizes.payments + sizes.callbacks;
    const second = await startCobro(database.env);
    const deliveredMs = await receiver.waitFor(callbacksExpected, callbacksTimeoutMs);
    // Killed with creates in flight, then started again: the restart replays what the kill left (PGlite's WAL).
    const inFlight = runLoad(sizes.requests, c, async (i) =>
      created(
        await postJson(
          second.url,
          account(0),
          '/api/transaction',
          transactionBody(i, { order: `killed-${i}` }),
        ),
      ),
    );
    await new Promise((r) => setTimeout(r, killAfterMs));
    await second.kill();
    await inFlight;
    // A restart that never gets ready is reported (null), not thrown: the figures measured before it stand.
    const restarted = await startCobro({ ...database.env, COBRO_WORKERS: '0' }).catch(
      (error: unknown) => {
        process.stderr.write(`bench: restart after kill -9 failed: ${String(error)}\n`);
        return null;
      },
    );
    await restarted?.stop();
    // Workers off again, so the advance's own drain settles every payment (a worker would race it for some). The
    // warm-up payments' account settles first, on the same server, as every other load follows its warm-up; that
    // first advance, the fresh server's first request, is reported beside the figure.
    const third = await startCobro({ ...database.env, COBRO_WORKERS: '0' });
    const settlementFirst = await settleByAdvance(third.url, account(warmupPayer));
    const settlement = await settleByAdvance(third.url, account(payer));
    await third.stop();
    return {
      coldStartMs: server.readyMs,
      warmStartMs: second.readyMs,
      killRestartMs: restarted?.readyMs ?? null,
      peakRssMb,
      createTransaction,
      getWallet,
      getWallet50,
      getBanks,
      hotWalletPayouts: { ...hotLoad, fundedFor, overdraft: hotLoad.ok > fundedFor },
      payouts50Wallets,
      paymentSuccess,
      callbacks: {
        delivered: receiver.received(),
        perSecond:
          deliveredMs === null ? null : Math.round((callbacksExpected / deliveredMs) * 1000),
      },
      settlementFirst,
      settlement,
      ledgerClean: await database.verify(),
    };
  } finally {
    await receiver.close();
    await database.drop();
  }
}
