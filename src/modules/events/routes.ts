// HTTP surface of events: POST /api/event and GET /api/event/{id} (seed "Events").
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { accountOf } from '../../platform/auth/auth-plugin.ts';
import { commandConfig, runCommand } from '../../platform/commands/runner.ts';
import { withErrors } from '../../platform/http/schemas.ts';
import { EventCreateBody, EventCreateResponse, EventGetResponse, EventParams } from './schemas.ts';
import { eventBodyAsRead } from './input.ts';
import { createEvent, getEvent } from './service.ts';

export async function eventRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/api/event',
    {
      config: { ...commandConfig, scope: 'full' },
      schema: {
        tags: ['Event'],
        summary: 'Create an event with its beneficiaries',
        body: EventCreateBody,
        response: withErrors({ 200: EventCreateResponse }),
      },
    },
    async (request, reply) =>
      runCommand(
        ctx,
        request,
        reply,
        (tx) => createEvent(tx, accountOf(request).id, request.body),
        // The beneficiaries are read by hand: hashed as read, so a retry that writes them another way replays
        // (decision 940).
        { bodyAsRead: () => eventBodyAsRead(request.body) },
      ),
  );

  r.get(
    '/api/event/:id',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['Event'],
        summary: 'One event by your identifier, with the totals of its paid sales',
        params: EventParams,
        response: withErrors({ 200: EventGetResponse }),
      },
    },
    async (request) => getEvent(ctx, accountOf(request).id, request.params.id),
  );
}
