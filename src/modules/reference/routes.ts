// GET /api/banks and GET /api/paymentmethods: public reference data (seed "Banks", "Methods of payment").
// The catalogue is static (seeded by migration 0001, never written at run time), so each answer is built once per
// app, kept in memory as its JSON body with a strong ETag, and a matching If-None-Match answers 304 (issue 13).
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { validationError } from '../../platform/errors/errors.ts';
import { BanksResponse, CurrencyQuery, PaymentMethodsResponse } from './schemas.ts';
import {
  knownCurrencies,
  listBanks,
  paymentMethodCatalogue,
  type PaymentMethodRow,
  type ReferenceAnswer,
  type ReferenceAnswers,
} from './repository.ts';
import {
  anyAccountCanTake,
  checkoutTakes,
  processorForAccount,
} from '../../platform/processors/account-processors.ts';

function answer(value: unknown): ReferenceAnswer {
  const body = JSON.stringify(value);
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

/** A method as the seed lists it (its kind stays inside). */
const listed = ({ currency, payment, name, description }: PaymentMethodRow) => ({
  currency,
  payment,
  name,
  description,
});

/**
 * Sandbox: the methods the deployment's processor takes on the checkout, the same for every account, so the answer
 * is built once (decision 451: the list is what can be paid, not the whole catalogue).
 */
async function loadCatalogue(ctx: AppContext): Promise<ReferenceAnswers> {
  const currencies = await knownCurrencies(ctx);
  const takeable = (await paymentMethodCatalogue(ctx)).filter((m) =>
    checkoutTakes(ctx.processor, m.kind, m.currency),
  );
  const banks = new Map<string, ReferenceAnswer>();
  const methods = new Map<string, ReferenceAnswer>();
  for (const currency of ['', ...currencies]) {
    const filter = currency === '' ? null : currency;
    banks.set(currency, answer({ status: 'success', banks: await listBanks(ctx.db, filter) }));
    methods.set(
      currency,
      answer({
        status: 'success',
        payment_methods: takeable
          .filter((m) => filter === null || m.currency === filter)
          .map(listed),
      }),
    );
  }
  return { currencies, banks, methods };
}

/** Built once per app (ctx.referenceData, decision 475); a failed build is not kept. */
function catalogueOf(ctx: AppContext): Promise<ReferenceAnswers> {
  return ctx.referenceData.answers.get(() => loadCatalogue(ctx));
}

function currencyKey(catalogue: ReferenceAnswers, raw: string | undefined): string {
  if (raw === undefined || raw.trim() === '') return '';
  const currency = raw.trim().toUpperCase();
  if (!catalogue.currencies.has(currency)) throw validationError({ currency: 'invalid' });
  return currency;
}

function send(request: FastifyRequest, reply: FastifyReply, a: ReferenceAnswer) {
  reply.header('etag', a.etag).header('cache-control', 'public, max-age=300');
  const match = request.headers['if-none-match'];
  if (match?.split(',').some((t) => t.trim() === a.etag || t.trim() === '*'))
    return reply.code(304).send();
  // A string with a JSON content type goes out as is: no serialisation per request.
  return reply.type('application/json; charset=utf-8').send(a.body);
}

/**
 * Production lists only what can really be paid (issue 15): with a Bearer token, what that account's processor
 * takes; without one, what some account of the deployment can take. Built per request, never cached publicly.
 */
async function sendTakeable(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  currency: string,
) {
  const token = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  const account = token === undefined ? null : await ctx.accounts.authenticatePublicToken(token);
  const rows = (await paymentMethodCatalogue(ctx)).filter(
    (m) => currency === '' || m.currency === currency,
  );
  const processor = account === null ? null : await processorForAccount(ctx, account.id);
  const takeable = [];
  for (const row of rows) {
    const takes =
      processor === null
        ? await anyAccountCanTake(ctx, row.currency, row.payment)
        : checkoutTakes(processor, row.kind, row.currency, row.payment);
    if (takes) takeable.push(listed(row));
  }
  reply.header('cache-control', 'private, no-store');
  return reply
    .type('application/json; charset=utf-8')
    .send(JSON.stringify({ status: 'success', payment_methods: takeable }));
}

export async function referenceRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    '/api/banks',
    {
      config: { auth: 'none' },
      schema: {
        tags: ['Banks'],
        summary: 'List partner banks, optionally by currency',
        querystring: CurrencyQuery,
        response: BanksResponse,
      },
    },
    async (request, reply) => {
      const catalogue = await catalogueOf(ctx);
      return send(
        request,
        reply,
        catalogue.banks.get(currencyKey(catalogue, request.query.currency))!,
      );
    },
  );
  r.get(
    '/api/paymentmethods',
    {
      config: { auth: 'none' },
      schema: {
        tags: ['Methods of payment'],
        summary: 'List payment methods, optionally by currency',
        querystring: CurrencyQuery,
        response: PaymentMethodsResponse,
      },
    },
    async (request, reply) => {
      const catalogue = await catalogueOf(ctx);
      if (ctx.config.mode === 'production')
        return sendTakeable(ctx, request, reply, currencyKey(catalogue, request.query.currency));
      return send(
        request,
        reply,
        catalogue.methods.get(currencyKey(catalogue, request.query.currency))!,
      );
    },
  );
}
