// Refuses a request that may write while the embedded database's disk is almost full (decision 420): 503 with
// Retry-After before any statement runs, since a WAL write that fails stalls PGlite for good. Reads still answer.
// Only a process with a disk-space guard (`cobro serve` on PGlite) registers it.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { databaseUnavailable, diskAlmostFull } from '../errors/errors.ts';

const readMethods: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

export function registerWriteGuard(app: FastifyInstance, ctx: AppContext): void {
  const space = ctx.diskSpace;
  if (space === undefined) return;
  // A callback hook: no promise per request (decision 250).
  app.addHook('onRequest', (request, _reply, done) => {
    if (!readMethods.has(request.method) && space.low()) done(databaseUnavailable(diskAlmostFull));
    else done();
  });
}
