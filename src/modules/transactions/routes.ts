// POST /api/transaction, GET /api/transaction/{id}, GET /api/transaction (seed "Transaction", reference §1).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { accountOf } from '../../platform/auth/auth-plugin.ts';
import { notFound } from '../../platform/errors/errors.ts';
import { commandConfig, runCommand } from '../../platform/commands/runner.ts';
import { withErrors } from '../../platform/http/schemas.ts';
import {
  CreateTransactionBody,
  CreateTransactionResponse,
  TransactionIdParams,
  TransactionListQuery,
  TransactionListResponse,
  TransactionView,
} from './schemas.ts';
import { createTransaction, createTransactionInTransaction } from './transaction-create.ts';
import { getTransaction, listTransactions } from './transaction-query.ts';

export async function transactionRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/api/transaction',
    {
      config: { ...commandConfig, scope: 'payments' },
      schema: {
        tags: ['Transaction'],
        summary: "Create a payment order; the payer's browser goes to the returned url",
        body: CreateTransactionBody,
        response: withErrors({ 200: CreateTransactionResponse }),
      },
    },
    async (request, reply) =>
      runCommand(
        ctx,
        request,
        reply,
        (tx, db) => createTransactionInTransaction(tx, db, accountOf(request).id, request.body),
        { grouped: (c) => createTransaction(c, accountOf(request).id, request.body) },
      ),
  );

  r.get(
    '/api/transaction/:id',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['Transaction'],
        summary: 'One transaction by id, payment_key or transaction_key',
        params: TransactionIdParams,
        response: withErrors({ 200: TransactionView }),
      },
    },
    async (request) => {
      const found = await getTransaction(ctx, accountOf(request).id, request.params.id);
      if (found === null) throw notFound('transaction');
      return found;
    },
  );

  r.get(
    '/api/transaction',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['Transaction'],
        summary: 'Transactions created in a date range (default today), optionally by status',
        querystring: TransactionListQuery,
        response: withErrors({ 200: TransactionListResponse }),
      },
    },
    async (request) => listTransactions(ctx, accountOf(request).id, request.query),
  );
}
