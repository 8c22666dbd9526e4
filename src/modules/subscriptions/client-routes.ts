// HTTP routes of subscription clients (/api/suclient): create, read and list, update and delete.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { clients, signed, signedCommand } from './route-options.ts';
import { accountOf } from '../../platform/auth/auth-plugin.ts';
import { runCommand } from '../../platform/commands/runner.ts';
import type { TypedRouter } from '../../platform/http/typed-router.ts';
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
} from './schemas.ts';
import {
  createClient,
  deleteClient,
  getClient,
  listCustomers,
  updateClient,
} from './client-service.ts';

/** /api/suclient: the subscription clients. */
export function clientRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  registerClientCreate(r, ctx);
  registerClientReads(r, ctx);
  registerClientChanges(r, ctx);
}

/** POST /api/suclient. */
function registerClientCreate(r: TypedRouter, ctx: AppContext): void {
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
}

/** GET /api/suclient/customers and /api/suclient/{id}. */
function registerClientReads(r: TypedRouter, ctx: AppContext): void {
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
}

/** PUT and DELETE /api/suclient/{id}. */
function registerClientChanges(r: TypedRouter, ctx: AppContext): void {
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
