// GET /api/banks and GET /api/paymentmethods: public reference data (seed "Banks", "Methods of payment").
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { validationError } from '../../platform/errors.ts';
import { BanksResponse, CurrencyQuery, PaymentMethodsResponse } from './schemas.ts';
import { knownCurrencies, listBanks, listPaymentMethods } from './repository.ts';

async function currencyFilter(ctx: AppContext, raw: string | undefined): Promise<string | null> {
  if (raw === undefined || raw.trim() === '') return null;
  const currency = raw.trim().toUpperCase();
  if (!(await knownCurrencies(ctx.db)).has(currency)) throw validationError({ currency: 'invalid' });
  return currency;
}

export async function referenceRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get('/api/banks', {
    config: { auth: 'none' },
    schema: { tags: ['Banks'], summary: 'List partner banks, optionally by currency', querystring: CurrencyQuery, response: BanksResponse },
  }, async (request) => {
    const banks = await listBanks(ctx.db, await currencyFilter(ctx, request.query.currency));
    return { status: 'success' as const, banks };
  });
  r.get('/api/paymentmethods', {
    config: { auth: 'none' },
    schema: { tags: ['Methods of payment'], summary: 'List payment methods, optionally by currency', querystring: CurrencyQuery, response: PaymentMethodsResponse },
  }, async (request) => {
    const methods = await listPaymentMethods(ctx.db, await currencyFilter(ctx, request.query.currency));
    return { status: 'success' as const, payment_methods: methods };
  });
}
