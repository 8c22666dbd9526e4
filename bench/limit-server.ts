// The limits every figure of `npm run bench` is measured beside, in its own process like `cobro serve`:
// `GET /noop` is Fastify doing nothing, `POST /insert` is Fastify plus one INSERT on the same engine, opened the
// same way Cobro opens it (DATABASE_URL for PostgreSQL, else PGlite in DATA_DIR), and `POST /insert-batched` is
// Fastify plus the group commit Cobro's creates use (decision 400): the first row is written at once, alone, and
// the rows that arrive while a statement runs are written by the next one, ONE `INSERT ... SELECT FROM unnest`
// of one array a column, at most `batchMax` rows. On PGlite a statement runs on the event loop, so nothing can
// arrive while it runs: each batch is taken one loop turn later, after the requests already read, as Cobro does.
import crypto from 'node:crypto';
import Fastify from 'fastify';
import { sql } from 'kysely';
import { openDatabase } from '../src/platform/db/database.ts';

const port = Number(process.env.PORT ?? '0');
const url = process.env.DATABASE_URL;
const onPostgres = url !== undefined && url !== '';
const handle = onPostgres
  ? await openDatabase({ engine: 'postgres', url })
  : await openDatabase({ engine: 'pglite', dataDir: process.env.DATA_DIR ?? null });
await sql`CREATE TABLE IF NOT EXISTS bench_limit_rows (id text PRIMARY KEY, body jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`.execute(
  handle.db,
);

/** As Cobro's `limits.transactionCreateGroupMax`. */
const batchMax = 32;
interface Waiting {
  readonly id: string;
  readonly body: string;
  readonly settle: (error: unknown) => void;
}
const waiting: Waiting[] = [];
let writing = false;

/** Writes the queue, one batch a statement, until it is empty; one writer at a time. */
async function writeBatches(): Promise<void> {
  writing = true;
  while (waiting.length > 0) {
    if (!onPostgres) await new Promise((resolve) => setImmediate(resolve));
    const batch = waiting.splice(0, batchMax);
    const ids = batch.map((w) => w.id);
    const bodies = batch.map((w) => w.body);
    const error =
      await sql`INSERT INTO bench_limit_rows (id, body) SELECT id, body::jsonb FROM unnest(${ids}::text[], ${bodies}::text[]) AS r(id, body)`
        .execute(handle.db)
        .then(
          () => null,
          (e: unknown) => e ?? new Error('batch failed'),
        );
    for (const w of batch) w.settle(error);
  }
  writing = false;
}

const app = Fastify({ logger: false });
app.get('/noop', async () => ({ ok: true }));
app.get('/readyz', async () => ({ ok: true }));
app.post('/insert', async (request) => {
  const id = crypto.randomUUID();
  await sql`INSERT INTO bench_limit_rows (id, body) VALUES (${id}, ${JSON.stringify(request.body ?? {})})`.execute(
    handle.db,
  );
  return { id };
});
app.post('/insert-batched', async (request) => {
  const id = crypto.randomUUID();
  await new Promise<void>((resolve, reject) => {
    waiting.push({
      id,
      body: JSON.stringify(request.body ?? {}),
      settle: (error) => (error === null ? resolve() : reject(error)),
    });
    if (!writing) void writeBatches();
  });
  return { id };
});
await app.listen({ port, host: '127.0.0.1' });
const stop = async () => {
  await app.close();
  await handle.close();
  process.exit(0);
};
process.on('SIGTERM', () => {
  void stop();
});
process.on('SIGINT', () => {
  void stop();
});
