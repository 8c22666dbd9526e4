// HTTP surface of the marketplace: /api/maclient and /api/maaffiliation (seed "Marketplace").
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { accountOf } from '../../platform/auth/auth-plugin.ts';
import { commandConfig, runCommand } from '../../platform/commands/runner.ts';
import type { TypedRouter } from '../../platform/http/typed-router.ts';
import { withErrors } from '../../platform/http/schemas.ts';
import {
  ClientCreateBody,
  ClientResponse,
  ClientUpdateBody,
  ClientUpdateResponse,
  IdParams,
  MembershipCreateBody,
  MembershipCreateResponse,
  MembershipResponse,
  SuspendedResponse,
} from './schemas.ts';
import { createClient, getClient, suspendClient, updateClient } from './client-service.ts';
import {
  createMembership,
  getMembership,
  membershipBodyAsRead,
  suspendMembership,
} from './membership-service.ts';

const clients = { tags: ['Marketplace'] };

export async function marketplaceRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  registerClientRoutes(r, ctx);
  registerMembershipRoutes(r, ctx);
}

/** /api/maclient: register, read, update and suspend a marketplace client. */
function registerClientRoutes(r: TypedRouter, ctx: AppContext): void {
  r.post(
    '/api/maclient',
    {
      config: { ...commandConfig, scope: 'full' },
      schema: {
        ...clients,
        summary: 'Register a marketplace client',
        body: ClientCreateBody,
        response: withErrors({ 200: ClientResponse }),
      },
    },
    async (request, reply) =>
      runCommand(ctx, request, reply, (tx) =>
        createClient(tx, accountOf(request).id, request.body),
      ),
  );

  r.get(
    '/api/maclient/:id',
    {
      config: { scope: 'read' },
      schema: {
        ...clients,
        summary: 'One marketplace client',
        params: IdParams,
        response: withErrors({ 200: ClientResponse }),
      },
    },
    async (request) => getClient(ctx, accountOf(request).id, request.params.id),
  );

  r.put(
    '/api/maclient/:id',
    {
      config: { ...commandConfig, auth: 'sign', scope: 'full' },
      schema: {
        ...clients,
        summary: 'Update a marketplace client (partial); answers with its memberships',
        params: IdParams,
        body: ClientUpdateBody,
        response: withErrors({ 200: ClientUpdateResponse }),
      },
    },
    async (request, reply) =>
      runCommand(ctx, request, reply, (txCtx, tx) =>
        updateClient(txCtx, tx, accountOf(request).id, request.params.id, request.body ?? {}),
      ),
  );

  r.delete(
    '/api/maclient/:id',
    {
      config: { ...commandConfig, scope: 'full' },
      schema: {
        ...clients,
        summary: 'Suspend a marketplace client',
        params: IdParams,
        response: withErrors({ 200: SuspendedResponse }),
      },
    },
    async (request, reply) =>
      runCommand(ctx, request, reply, (tx) =>
        suspendClient(tx, accountOf(request).id, request.params.id),
      ),
  );
}

/** /api/maaffiliation: create, read and suspend a membership. */
function registerMembershipRoutes(r: TypedRouter, ctx: AppContext): void {
  r.post(
    '/api/maaffiliation',
    {
      config: { ...commandConfig, scope: 'full' },
      // Supplement §1.1: `affiliaction` is accepted as an alias of `affiliation` (the first wins when both come).
      preValidation: async (request) => {
        const body = request.body as Record<string, unknown> | null;
        if (
          body !== null &&
          typeof body === 'object' &&
          body.affiliation === undefined &&
          body.affiliaction !== undefined
        ) {
          body.affiliation = body.affiliaction;
        }
      },
      schema: {
        ...clients,
        summary: "Create a membership: the merchant's and each client's percent of every payment",
        body: MembershipCreateBody,
        response: withErrors({ 200: MembershipCreateResponse }),
      },
    },
    async (request, reply) =>
      runCommand(
        ctx,
        request,
        reply,
        (tx) => createMembership(tx, accountOf(request).id, request.body),
        // The pairs are read by hand: hashed as read, so a retry that writes them another way replays (decision 940).
        { bodyAsRead: () => membershipBodyAsRead(request.body) },
      ),
  );

  r.get(
    '/api/maaffiliation/:id',
    {
      config: { scope: 'read' },
      schema: {
        ...clients,
        summary: 'One membership',
        params: IdParams,
        response: withErrors({ 200: MembershipResponse }),
      },
    },
    async (request) => getMembership(ctx, accountOf(request).id, request.params.id),
  );

  r.delete(
    '/api/maaffiliation/:id',
    {
      config: { ...commandConfig, scope: 'full' },
      schema: {
        ...clients,
        summary: 'Suspend a membership',
        params: IdParams,
        response: withErrors({ 200: SuspendedResponse }),
      },
    },
    async (request, reply) =>
      runCommand(ctx, request, reply, (tx) =>
        suspendMembership(tx, accountOf(request).id, request.params.id),
      ),
  );
}
