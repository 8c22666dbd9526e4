// The limits every figure of `npm run bench` is measured beside, in its own process like `cobro serve`:
// `GET /noop` is Fastify doing nothing, `POST /insert` is Fastify plus one INSERT on the same engine, opened the
// same way Cobro opens it (DATABASE_URL for PostgreSQL, else PGlite in DATA_DIR).
import crypto from 'node:crypto';
import Fastify from 'fastify';
import { sql } from 'kysely';
import { openDatabase } from '../src/platform/db/database.ts';

const port = Number(process.env.PORT ?? '0');
const url = process.env.DATABASE_URL;
const handle =
  url !== undefined && url !== ''
    ? await openDatabase({ engine: 'postgres', url })
    : await openDatabase({ engine: 'pglite', dataDir: process.env.DATA_DIR ?? null });
await sql`CREATE TABLE IF NOT EXISTS bench_limit_rows (id text PRIMARY KEY, body jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`.execute(
  handle.db,
);

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
