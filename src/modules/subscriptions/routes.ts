// HTTP surface of subscriptions (reference §7, §8): every su* route is Bearer + Sign; `/api/x/` routes as `/api/x`.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { accountOf } from '../../platform/auth/auth-plugin.ts';
import { commandConfig, runCommand } from '../../platform/commands/runner.ts';
import { withErrors } from '../../platform/http/schemas.ts';
import {
  ClientCreateBody,
  ClientCreateResponse,
  ClientResponse,
  ClientUpdateBody,
  ClientUpdateResponse,
  CustomersQuery,
  CustomersResponse,
  DeletedResponse,
  KeyParams,
  PlanCreateBody,
  PlanCreateResponse,
  PlanResponse,
  PlansResponse,
} from './schemas.ts';
import {
  createClient,
  deleteClient,
  getClient,
  listCustomers,
  updateClient,
} from './client-service.ts';
import { createPlan, getPlan, getPlans } from './plan-service.ts';
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
  CardDeleteBody,
  CardDeleteResponse,
  CardLinkBody,
  CardLinkResponse,
} from './card-schemas.ts';
import { deleteCard, newCardLink } from './card-service.ts';
import { ConsumptionChargeBody, ConsumptionChargeResponse } from './consumption-schemas.ts';
import { finishConsumptionCharge, openConsumptionCharge } from './consumption.ts';
import {
  createSubscription,
  endSubscription,
  getSubscription,
  listSubscriptionsV1,
  listSubscriptionsV3,
} from './subscription-service.ts';

const signed = { auth: 'sign' as const };
const signedCommand = { ...commandConfig, auth: 'sign' as const };
const clients = { tags: ['Subscriptions'] };

export async function subscriptionRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  clientRoutes(app, ctx);
  planRoutes(app, ctx);
  subscriptionResourceRoutes(app, ctx);
  cardRoutes(app, ctx);
  chargeRoutes(app, ctx);
}

/** /api/suclient: the subscription clients. */
function clientRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/api/suclient',
    {
      config: { ...signedCommand, scope: 'payments' },
      schema: {
        ...clients,
        summary: 'Create a subscription client',
        body: ClientCreateBody,
        response: withErrors({ 200: ClientCreateResponse }),
      },
    },
    async (request, reply) =>
      runCommand(ctx, request, reply, (tx) =>
        createClient(tx, accountOf(request).id, request.body),
      ),
  );

  r.get(
    '/api/suclient/customers',
    {
      config: { ...signed, scope: 'read' },
      schema: {
        ...clients,
        summary: 'Subscription clients created in a date range (default today)',
        querystring: CustomersQuery,
        response: withErrors({ 200: CustomersResponse }),
      },
    },
    async (request) => listCustomers(ctx, accountOf(request).id, request.query),
  );

  r.get(
    '/api/suclient/:id',
    {
      config: { ...signed, scope: 'read' },
      schema: {
        ...clients,
        summary: 'One subscription client, by id or e-mail',
        params: KeyParams,
        response: withErrors({ 200: ClientResponse }),
      },
    },
    async (request) => getClient(ctx, accountOf(request).id, request.params.id),
  );

  r.put(
    '/api/suclient/:id',
    {
      config: { ...signedCommand, scope: 'payments' },
      schema: {
        ...clients,
        summary: 'Update a subscription client (partial), by id or e-mail',
        params: KeyParams,
        body: ClientUpdateBody,
        response: withErrors({ 200: ClientUpdateResponse }),
      },
    },
    async (request, reply) =>
      runCommand(ctx, request, reply, (tx) =>
        updateClient(tx, accountOf(request).id, request.params.id, request.body ?? {}),
      ),
  );

  r.delete(
    '/api/suclient/:id',
    {
      config: { ...signedCommand, scope: 'payments' },
      schema: {
        ...clients,
        summary: 'Delete a subscription client, by id or e-mail',
        params: KeyParams,
        response: withErrors({ 200: DeletedResponse }),
      },
    },
    async (request, reply) =>
      runCommand(ctx, request, reply, (tx) =>
        deleteClient(tx, accountOf(request).id, request.params.id),
      ),
  );
}

/** /api/suplan: the plans clients subscribe to. */
function planRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/api/suplan',
    {
      config: { ...signedCommand, scope: 'payments' },
      schema: {
        ...clients,
        summary: "Create a plan (with Cobro's pricing fields)",
        body: PlanCreateBody,
        response: withErrors({ 200: PlanCreateResponse }),
      },
    },
    async (request, reply) =>
      runCommand(ctx, request, reply, (tx) => createPlan(tx, accountOf(request).id, request.body)),
  );

  r.get(
    '/api/suplan/plans',
    {
      config: { ...signed, scope: 'read' },
      schema: {
        ...clients,
        summary: 'Every plan of the account',
        response: withErrors({ 200: PlansResponse }),
      },
    },
    async (request) => getPlans(ctx, accountOf(request).id),
  );

  r.get(
    '/api/suplan/:id',
    {
      config: { ...signed, scope: 'read' },
      schema: {
        ...clients,
        summary: 'One plan (under the plural key `plans`)',
        params: KeyParams,
        response: withErrors({ 200: PlanResponse }),
      },
    },
    async (request) => getPlan(ctx, accountOf(request).id, request.params.id),
  );
}

/** /api/sususcription(v3): subscribe, list, read and delete subscriptions. */
function subscriptionResourceRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

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

/** The cards of a subscription: a new enrolment page, and removal. */
function cardRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/api/suinscriptionscards',
    {
      config: { ...signedCommand, scope: 'payments' },
      schema: {
        ...clients,
        summary: "A new hosted enrolment page to add or replace the subscription's card",
        body: CardLinkBody,
        response: withErrors({ 200: CardLinkResponse }),
      },
    },
    async (request, reply) =>
      runCommand(ctx, request, reply, (tx) =>
        newCardLink(tx, accountOf(request).id, request.body.suscription),
      ),
  );

  r.post(
    '/api/suscriptionsdeletecards',
    {
      config: { ...signedCommand, scope: 'payments' },
      schema: {
        ...clients,
        summary: 'Remove a card (`card`, or its alias `suscription`)',
        body: CardDeleteBody,
        response: withErrors({ 200: CardDeleteResponse }),
      },
    },
    async (request, reply) =>
      runCommand(ctx, request, reply, (tx) =>
        deleteCard(tx, accountOf(request).id, request.body.card ?? request.body.suscription),
      ),
  );
}

/** /api/sutransaction: a consumption charge on a subscription's stored card. */
function chargeRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/api/sutransaction',
    {
      config: { ...signedCommand, scope: 'payments' },
      schema: {
        ...clients,
        summary:
          "Charge a subscription's stored card once (consumption); a declined card answers `status: failed`",
        body: ConsumptionChargeBody,
        response: withErrors({ 200: ConsumptionChargeResponse }),
      },
    },
    async (request, reply) =>
      runCommand(
        ctx,
        request,
        reply,
        (tx) => openConsumptionCharge(tx, accountOf(request).id, request.body),
        {
          afterCommit: finishConsumptionCharge,
        },
      ),
  );
}
