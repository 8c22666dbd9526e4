// HTTP routes of subscriptions themselves (/api/sususcription, v3): subscribe, list, read and delete.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { clients, signed, signedCommand } from './route-options.ts';
import { accountOf } from '../../platform/auth/auth-plugin.ts';
import { runCommand } from '../../platform/commands/runner.ts';
import type { TypedRouter } from '../../platform/http/typed-router.ts';
import { withErrors } from '../../platform/http/schemas.ts';
import {
  SubscriptionCreateBody,
  SubscriptionCreateResponse,
  SubscriptionDeletedResponse,
  SubscriptionIdParams,
  SubscriptionListQuery,
  SubscriptionListV1Response,
  SubscriptionListV3Response,
  SubscriptionResponse,
} from './subscription-schemas.ts';
import {
  createSubscription,
  endSubscription,
  getSubscription,
  listSubscriptionsV1,
  listSubscriptionsV3,
} from './subscription-service.ts';

/** /api/sususcription(v3): subscribe, list, read and delete subscriptions. */
export function subscriptionResourceRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  registerSubscribe(r, ctx);
  registerSubscriptionReads(r, ctx);
  registerSubscriptionDelete(r, ctx);
}

/** POST /api/sususcription. */
function registerSubscribe(r: TypedRouter, ctx: AppContext): void {
  r.post(
    '/api/sususcription',
    {
      config: { ...signedCommand, scope: 'payments' },
      schema: {
        ...clients,
        summary: 'Subscribe a client to a plan; `url` is the hosted card enrolment page',
        body: SubscriptionCreateBody,
        response: withErrors({ 200: SubscriptionCreateResponse }),
      },
    },
    async (request, reply) =>
      runCommand(ctx, request, reply, (tx) =>
        createSubscription(tx, accountOf(request).id, request.body),
      ),
  );
}

/** GET /api/sususcription, /api/sususcriptionv3 and /api/sususcription/{id}. */
function registerSubscriptionReads(r: TypedRouter, ctx: AppContext): void {
  r.get(
    '/api/sususcription',
    {
      config: { ...signed, scope: 'read' },
      schema: {
        ...clients,
        summary: 'Subscriptions created in a date range (v1 shape), `<status>=true` filters',
        querystring: SubscriptionListQuery,
        response: withErrors({ 200: SubscriptionListV1Response }),
      },
    },
    async (request) => listSubscriptionsV1(ctx, accountOf(request).id, request.query),
  );

  r.get(
    '/api/sususcriptionv3',
    {
      config: { ...signed, scope: 'read' },
      schema: {
        ...clients,
        summary: 'Subscriptions created in a date range (v3 shape, with `paid[]` cycles)',
        querystring: SubscriptionListQuery,
        response: withErrors({ 200: SubscriptionListV3Response }),
      },
    },
    async (request) => listSubscriptionsV3(ctx, accountOf(request).id, request.query),
  );

  r.get(
    '/api/sususcription/:id',
    {
      config: { ...signed, scope: 'read' },
      schema: {
        ...clients,
        summary: 'One subscription with its cards, payments and status log',
        params: SubscriptionIdParams,
        response: withErrors({ 200: SubscriptionResponse }),
      },
    },
    async (request) => getSubscription(ctx, accountOf(request).id, request.params.id),
  );
}

/** DELETE /api/sususcription/{id}. */
function registerSubscriptionDelete(r: TypedRouter, ctx: AppContext): void {
  r.delete(
    '/api/sususcription/:id',
    {
      config: { ...signedCommand, scope: 'payments' },
      schema: {
        ...clients,
        summary: 'Delete a subscription: nothing is charged after it',
        params: SubscriptionIdParams,
        response: withErrors({ 200: SubscriptionDeletedResponse }),
      },
    },
    async (request, reply) =>
      runCommand(ctx, request, reply, (tx) =>
        endSubscription(tx, accountOf(request).id, request.params.id, 'delete'),
      ),
  );
}
