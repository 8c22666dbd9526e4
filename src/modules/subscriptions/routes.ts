// HTTP surface of subscriptions (reference §7, §8): every su* route is Bearer + Sign; `/api/x/` routes as `/api/x`.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { clientRoutes } from './client-routes.ts';
import { subscriptionResourceRoutes } from './subscription-routes.ts';
import { clients, signed, signedCommand } from './route-options.ts';
import { accountOf } from '../../platform/auth/auth-plugin.ts';
import { runCommand } from '../../platform/commands/runner.ts';
import { withErrors } from '../../platform/http/schemas.ts';
import {
  KeyParams,
  PlanCreateBody,
  PlanCreateResponse,
  PlanResponse,
  PlansResponse,
} from './schemas.ts';
import { createPlan, getPlan, getPlans } from './plan-service.ts';
import {
  CardDeleteBody,
  CardDeleteResponse,
  CardLinkBody,
  CardLinkResponse,
} from './card-schemas.ts';
import { deleteCard, newCardLink } from './card-service.ts';
import { ConsumptionChargeBody, ConsumptionChargeResponse } from './consumption-schemas.ts';
import { finishConsumptionCharge, openConsumptionCharge } from './consumption.ts';

export async function subscriptionRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  clientRoutes(app, ctx);
  planRoutes(app, ctx);
  subscriptionResourceRoutes(app, ctx);
  cardRoutes(app, ctx);
  chargeRoutes(app, ctx);
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
      runCommand(
        ctx,
        request,
        reply,
        (tx) =>
          deleteCard(tx, accountOf(request).id, request.body.card ?? request.body.suscription),
        {
          auditTarget: (deleted) => deleted.card,
          // Transbank's inscription is deleted by the paced due work, not in this request (decision 1105).
        },
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
          auditTarget: (opened) => ('transactionId' in opened ? opened.transactionId : null),
          afterCommit: finishConsumptionCharge,
        },
      ),
  );
}
