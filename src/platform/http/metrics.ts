// Prometheus `/metrics` (docs/operations.md). Request counts and latency are counted in this process; the figures
// that live in the database (payments, payouts, callbacks, journals) are read at scrape time, so every process
// sharing one PostgreSQL reports the same numbers and nothing drifts after a restart.
import crypto from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { Gauge, Registry } from 'prom-client';
import type { AppContext } from '../context.ts';
import { inTransaction } from '../db/unit-of-work.ts';
import { ApiError } from '../errors/errors.ts';
import { limits } from '../../limits/index.ts';
import { RequestMetrics } from './request-metrics.ts';

interface DbSnapshot {
  readonly payments: ReadonlyArray<readonly [string, number]>;
  readonly payouts: ReadonlyArray<readonly [string, number]>;
  readonly callbackAttempts: ReadonlyArray<readonly [string, number]>;
  readonly callbacksQueued: number;
  readonly oldestQueuedAt: Date | null;
  readonly journals: number;
}

type CountRow = { key: string | null; n: string | number | bigint };

function pairs(rows: readonly CountRow[], nullKey: string): Array<readonly [string, number]> {
  return rows.map((r) => [r.key ?? nullKey, Number(r.n)] as const);
}

/**
 * One short read-only transaction per scrape. Every query is served by an index: status indexes on transactions,
 * payouts and attempts (migration 0090), the partial `notifications_due` index for the queue, the primary key
 * for journals.
 */
async function readSnapshot(ctx: AppContext): Promise<DbSnapshot> {
  return inTransaction(ctx.db, async (tx) => {
    await sql.raw(`SET LOCAL statement_timeout = ${limits.metricsQueryTimeoutMs}`).execute(tx);
    const payments =
      await sql<CountRow>`SELECT status AS key, count(*) AS n FROM transactions GROUP BY status`.execute(
        tx,
      );
    const payouts =
      await sql<CountRow>`SELECT status AS key, count(*) AS n FROM payouts GROUP BY status`.execute(
        tx,
      );
    const attempts =
      await sql<CountRow>`SELECT outcome AS key, count(*) AS n FROM notification_attempts GROUP BY outcome`.execute(
        tx,
      );
    const queue = await sql<{ n: string | number | bigint; oldest: Date | null }>`
      SELECT count(*) AS n, min(created_at) AS oldest FROM notifications WHERE status IN ('pending', 'delivering')`.execute(
      tx,
    );
    const journals = await sql<{
      n: string | number | bigint;
    }>`SELECT count(*) AS n FROM journal_entries`.execute(tx);
    return {
      payments: pairs(payments.rows, 'unknown'),
      payouts: pairs(payouts.rows, 'unknown'),
      // An attempt without an outcome is being sent right now.
      callbackAttempts: pairs(attempts.rows, 'in_flight'),
      callbacksQueued: Number(queue.rows[0]?.n ?? 0),
      oldestQueuedAt: queue.rows[0]?.oldest ?? null,
      journals: Number(journals.rows[0]?.n ?? 0),
    };
  });
}

function sameToken(given: string, expected: string): boolean {
  // Hashing first gives equal lengths, so the comparison is constant-time whatever was sent.
  const a = crypto.createHash('sha256').update(given).digest();
  const b = crypto.createHash('sha256').update(expected).digest();
  return crypto.timingSafeEqual(a, b);
}

function buildRegistry(ctx: AppContext): { registry: Registry; requests: RequestMetrics } {
  const registry = new Registry();
  const requests = new RequestMetrics();
  requests.register(registry);

  // Every database gauge of one scrape shares one snapshot: the registry collects all metrics at once.
  let pending: Promise<DbSnapshot> | null = null;
  const snapshot = (): Promise<DbSnapshot> => {
    pending ??= readSnapshot(ctx).finally(() => {
      pending = null;
    });
    return pending;
  };
  registerStatusGauges(registry, snapshot);
  registerQueueGauges(ctx, registry, snapshot);
  registerPoolGauge(ctx, registry, snapshot);
  return { registry, requests };
}

type Snapshot = () => Promise<DbSnapshot>;

/** Payments, payouts and callback attempts, by status or outcome. */
function registerStatusGauges(registry: Registry, snapshot: Snapshot): void {
  const byLabel = (
    name: string,
    help: string,
    label: string,
    pick: (s: DbSnapshot) => ReadonlyArray<readonly [string, number]>,
  ) =>
    new Gauge({
      name,
      help,
      labelNames: [label],
      registers: [registry],
      async collect() {
        const rows = pick(await snapshot());
        this.reset();
        for (const [key, n] of rows) this.set({ [label]: key }, n);
      },
    });
  byLabel(
    'cobro_payments',
    'Payments (transactions) in the database, by status.',
    'status',
    (s) => s.payments,
  );
  byLabel('cobro_payouts', 'Payouts in the database, by status.', 'status', (s) => s.payouts);
  byLabel(
    'cobro_callback_attempts',
    'Callback delivery attempts, by outcome (in_flight: being sent).',
    'outcome',
    (s) => s.callbackAttempts,
  );
}

/** The callback queue's length and oldest age, and the ledger's journals. */
function registerQueueGauges(ctx: AppContext, registry: Registry, snapshot: Snapshot): void {
  new Gauge({
    name: 'cobro_callbacks_queued',
    help: 'Callbacks waiting for delivery (pending or being delivered).',
    registers: [registry],
    async collect() {
      this.set((await snapshot()).callbacksQueued);
    },
  });
  new Gauge({
    name: 'cobro_callback_queue_oldest_age_seconds',
    help: 'Age of the oldest queued callback; 0 when the queue is empty.',
    registers: [registry],
    async collect() {
      const oldest = (await snapshot()).oldestQueuedAt;
      this.set(
        oldest === null ? 0 : Math.max(0, (ctx.clock.now().getTime() - oldest.getTime()) / 1000),
      );
    },
  });
  new Gauge({
    name: 'cobro_ledger_journals',
    help: 'Journal entries in the ledger.',
    registers: [registry],
    async collect() {
      this.set((await snapshot()).journals);
    },
  });
}

/** This process's database connections. */
function registerPoolGauge(ctx: AppContext, registry: Registry, snapshot: Snapshot): void {
  new Gauge({
    name: 'cobro_db_pool_connections',
    help: 'Database connections of this process: total, idle and waiting requests (PGlite: one in-process connection, total only).',
    labelNames: ['engine', 'state'],
    registers: [registry],
    async collect() {
      // After this scrape's own queries, so the scrape's wait for a connection is not reported as load.
      await snapshot();
      this.reset();
      const pool = ctx.pool;
      if (pool === null) {
        this.set({ engine: ctx.engine, state: 'total' }, 1);
        return;
      }
      this.set({ engine: ctx.engine, state: 'total' }, pool.totalCount);
      this.set({ engine: ctx.engine, state: 'idle' }, pool.idleCount);
      this.set({ engine: ctx.engine, state: 'waiting' }, pool.waitingCount);
    },
  });
}

/** Sandbox: open. Production: only with `Authorization: Bearer <METRICS_TOKEN>`, and absent without a token. */
function allow(ctx: AppContext, request: FastifyRequest, reply: FastifyReply): boolean {
  if (ctx.config.mode === 'sandbox') return true;
  const token = ctx.config.metricsToken;
  if (token === null) {
    reply.callNotFound();
    return false;
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  if (match?.[1] === undefined || !sameToken(match[1], token))
    throw new ApiError('token_invalid', 'invalid token');
  return true;
}

export function registerMetrics(app: FastifyInstance, ctx: AppContext): void {
  const { registry, requests } = buildRegistry(ctx);
  // A callback hook: no promise per request (decision 250).
  app.addHook('onResponse', (request, reply, done) => {
    // The route's pattern, never the raw URL: ids in paths would make one series per payment.
    requests.record(
      request.method,
      request.routeOptions.url ?? 'unmatched',
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });
  // Hidden from the OpenAPI document: it answers Prometheus text, not the API's JSON.
  app.get(
    '/metrics',
    { config: { auth: 'none' }, schema: { hide: true } },
    async (request, reply) => {
      if (!allow(ctx, request, reply)) return reply;
      let body: string;
      try {
        body = await registry.metrics();
      } catch (error) {
        request.log.warn({ err: error }, 'metrics scrape failed');
        throw new ApiError('unavailable', 'metrics could not be read from the database');
      }
      return reply.type(registry.contentType).send(body);
    },
  );
}
