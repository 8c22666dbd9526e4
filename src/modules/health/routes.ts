// Liveness and readiness for load balancers and orchestrators.
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { Type } from 'typebox';
import type { AppContext } from '../../platform/context.ts';
import { databaseUnavailable, diskAlmostFull } from '../../platform/errors/errors.ts';
import { ErrorEnvelope } from '../../platform/http/schemas.ts';
import { limits } from '../../limits/index.ts';

const Live = Type.Object({ status: Type.Literal('success'), up: Type.Literal(true) });
const Ready = Type.Object({
  status: Type.Literal('success'),
  ready: Type.Literal(true),
  engine: Type.Union([Type.Literal('pglite'), Type.Literal('postgres')]),
});

/**
 * Whether the database answers and takes writes. A host that answers but refuses every write (a standby, a demoted
 * primary, a server set `default_transaction_read_only`) is not ready: each write there answers 503 (decision 840).
 * PostgreSQL gets dbReadyProbeTimeoutMs: a host gone silent never answers, and readiness must say so before the
 * statement's own bound (decision 685). PGlite runs in this process, where a wait is queued work (a backup's copy),
 * not a host away.
 */
async function databaseAnswers(ctx: AppContext): Promise<boolean> {
  const select = sql<{
    readOnly: string;
  }>`SELECT current_setting('transaction_read_only') AS "readOnly"`
    .execute(ctx.db)
    .then(
      (r) => r.rows[0]?.readOnly === 'off',
      () => false,
    );
  if (ctx.engine !== 'postgres') return select;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), limits.dbReadyProbeTimeoutMs);
  });
  return Promise.race([select, late]).finally(() => clearTimeout(timer));
}

export async function healthRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.get(
    '/healthz',
    {
      config: { auth: 'none' },
      schema: {
        tags: ['Operations'],
        summary: 'Process is up',
        hide: false,
        response: { 200: Live },
      },
    },
    async () => ({ status: 'success', up: true }),
  );
  app.get(
    '/readyz',
    {
      config: { auth: 'none' },
      schema: {
        tags: ['Operations'],
        summary: 'Database answers and takes writes',
        response: { 200: Ready, 503: ErrorEnvelope },
      },
    },
    async () => {
      // An embedded database whose disk is almost full answers reads, but is not ready for the writes a client sends.
      if (ctx.diskSpace?.low() === true) throw databaseUnavailable(diskAlmostFull);
      if (!(await databaseAnswers(ctx))) throw databaseUnavailable();
      return { status: 'success', ready: true, engine: ctx.engine };
    },
  );
}
