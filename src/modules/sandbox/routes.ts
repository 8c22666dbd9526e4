// Sandbox-only controls (supplement §6.3). Not registered in production mode.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { accountOf } from '../../platform/auth/auth-plugin.ts';
import { validationError } from '../../platform/errors/errors.ts';
import { commandConfig, runCommand } from '../../platform/commands/runner.ts';
import { withErrors } from '../../platform/http/schemas.ts';
import { AdvanceBody, AdvanceResponse } from './schemas.ts';
import { limits } from '../../limits/index.ts';
import { drainDueWork } from '../../platform/work/due-work.ts';
import { formatTimestamp } from '../../platform/time/time-format.ts';

export async function sandboxRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  if (ctx.config.mode !== 'sandbox') return;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/api/sandbox/clock/advance',
    {
      config: { ...commandConfig, scope: 'full' },
      schema: {
        tags: ['Extensions'],
        summary: "Move this account's sandbox clock forward and run what became due",
        body: AdvanceBody,
        response: withErrors({ 200: AdvanceResponse }),
      },
    },
    async (request, reply) => {
      const account = accountOf(request);
      const b = request.body;
      return runCommand(
        ctx,
        request,
        reply,
        async (tx) => {
          const deltaMs =
            ((((b.days ?? 0) * 24 + (b.hours ?? 0)) * 60 + (b.minutes ?? 0)) * 60 +
              (b.seconds ?? 0)) *
            1000;
          if (deltaMs <= 0) throw validationError({ body: 'is empty' });
          if (deltaMs > limits.sandboxAdvanceMsMax) throw validationError({ body: 'too large' });
          const offsetMs = await tx.accountClock.advance(account.id, deltaMs, tx.db);
          if (offsetMs === null) throw validationError({ body: 'too large' });
          return offsetMs;
        },
        {
          // What became due runs after the advance commits: it delivers callbacks (network calls), and every due-work
          // handler only takes what is due, so running it again after a crash does nothing twice.
          afterCommit: async (outer, offsetMs) => {
            outer.accountClock.forget();
            return {
              status: 'success' as const,
              processed: await drainDueWork(outer, account.id),
              now: formatTimestamp(
                await outer.accountClock.now(account.id, outer.db),
                outer.config.timeZone,
              ),
              offset_seconds: Math.floor(offsetMs / 1000),
            };
          },
        },
      );
    },
  );
}
