// Liveness and readiness for load balancers and orchestrators.
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from '../../platform/context.ts';
import { ApiError } from '../../platform/errors.ts';

export async function healthRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.get('/healthz', { config: { auth: 'none' }, schema: { tags: ['Operations'], summary: 'Process is up', hide: false } }, async () => ({ status: 'success', up: true }));
  app.get('/readyz', { config: { auth: 'none' }, schema: { tags: ['Operations'], summary: 'Database answers' } }, async () => {
    try {
      await sql`SELECT 1`.execute(ctx.db);
    } catch {
      throw new ApiError('unavailable', 'database does not answer');
    }
    return { status: 'success', ready: true, engine: ctx.engine };
  });
}
