// Wallet endpoints (seed "Wallet"): payouts, withdrawals, balance and movements, payout queries. All signed.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import { accountOf } from '../../platform/auth/auth-plugin.ts';
import { ruleFailure, validationError } from '../../platform/errors/errors.ts';
import { commandConfig, runCommand } from '../../platform/commands/runner.ts';
import { withErrors } from '../../platform/http/schemas.ts';
import type { TypedRouter } from '../../platform/http/typed-router.ts';
import { limits } from '../../limits/index.ts';
import { createPayout, createPayoutInTransaction } from './payout-create.ts';
import type { CreateOutcome, PayoutRequest } from './payout-plan.ts';
import { knownCurrency, payoutRequestFrom, withdrawRequestFrom } from './payout-input.ts';
import { payoutById, payoutV3ById } from './payout-query.ts';
import { walletMovement } from './wallet-query.ts';
import { walletSummary } from './summary-reads.ts';
import { creditWallet } from './wallet-credit.ts';
import { minorAsExactInteger } from '../../platform/money/json-number.ts';
import {
  IdParams,
  PayoutCreateBody,
  PayoutCreateResponse,
  PayoutResponse,
  PayoutV3Response,
  SandboxCreditBody,
  SandboxCredited,
  WalletQuery,
  WalletSummary,
  WithdrawBody,
  WithdrawResponse,
} from './schemas.ts';

const tags = ['Wallet'];
const signed = { auth: 'sign' as const };
const signedCommand = { ...commandConfig, ...signed };
const defaultCurrency = 'CLP';

type PayoutWrite = (request: PayoutRequest) => Promise<CreateOutcome>;

/**
 * A payout route's two runners (decision 470), around its answer: with an Idempotency-Key, the payout alone in the
 * runner's transaction; without one, grouped, in its account's next group commit.
 */
function payoutRunners<T>(answer: (ctx: AppContext, write: PayoutWrite) => Promise<T>) {
  return [
    (tx: AppContext, db: Tx) => answer(tx, (r) => createPayoutInTransaction(tx, db, r)),
    { grouped: (c: AppContext) => answer(c, (r) => createPayout(c, r)) },
  ] as const;
}

export async function walletRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  registerPayoutCommands(r, ctx);
  registerWalletReads(r, ctx);
  registerPayoutReads(r, ctx);
  if (ctx.config.mode !== 'sandbox') return;
  registerSandboxCredit(r, ctx);
}

/** POST /api/wallet/payout and /api/wallet/withdraw: money leaves the wallet. */
function registerPayoutCommands(r: TypedRouter, ctx: AppContext): void {
  r.post(
    '/api/wallet/payout',
    {
      config: { ...signedCommand, scope: 'full' },
      schema: {
        tags,
        summary: 'Pay a third party from the wallet',
        body: PayoutCreateBody,
        response: withErrors({ 200: PayoutCreateResponse }),
      },
    },
    async (request, reply) =>
      runCommand(
        ctx,
        request,
        reply,
        ...payoutRunners(async (c, write) => {
          const outcome = await write(
            await payoutRequestFrom(c, accountOf(request).id, request.body),
          );
          if (!outcome.ok)
            return { ...outcome.failure, identifier_wallet: '', identifier_payout: '' } as const;
          return {
            status: 'success' as const,
            identifier_wallet: outcome.movementId,
            identifier_payout: outcome.payoutId,
          };
        }),
      ),
  );

  r.post(
    '/api/wallet/withdraw',
    {
      config: { ...signedCommand, scope: 'full' },
      schema: {
        tags,
        summary: "Withdraw to the account's own bank account",
        body: WithdrawBody,
        response: withErrors({ 200: WithdrawResponse }),
      },
    },
    async (request, reply) =>
      runCommand(
        ctx,
        request,
        reply,
        ...payoutRunners(async (c, write) => {
          const prepared = await withdrawRequestFrom(c, accountOf(request).id, request.body);
          if (!prepared.ok)
            return {
              ...ruleFailure('bank_account_missing', { currency: prepared.currency }),
              identifier_wallet: '',
            } as const;
          const outcome = await write(prepared.request);
          if (!outcome.ok) return { ...outcome.failure, identifier_wallet: '' } as const;
          return { status: 'Success' as const, identifier_wallet: outcome.movementId };
        }),
      ),
  );
}

async function summary(
  ctx: AppContext,
  accountId: string,
  query: { page?: number; per_page?: number; currency?: string },
) {
  const currency = await knownCurrency(ctx, query.currency ?? defaultCurrency);
  if (currency === null) throw validationError({ currency: 'invalid' });
  return walletSummary(ctx, {
    accountId,
    currency,
    page: query.page ?? 1,
    perPage: query.per_page ?? limits.pageSizeDefault,
  });
}

/** GET /api/wallet, /api/wallet/list and /api/wallet/{id}: the balance and its movements. */
function registerWalletReads(r: TypedRouter, ctx: AppContext): void {
  r.get(
    '/api/wallet',
    {
      config: { ...signed, scope: 'read' },
      schema: {
        tags,
        summary: 'Wallet balance with the latest movements',
        querystring: WalletQuery,
        response: withErrors({ 200: WalletSummary }),
      },
    },
    async (request) => summary(ctx, accountOf(request).id, request.query),
  );

  r.get(
    '/api/wallet/list',
    {
      config: { ...signed, scope: 'read' },
      schema: {
        tags,
        summary: 'Wallet movements, paginated (at most 4000 a page)',
        querystring: WalletQuery,
        response: withErrors({ 200: WalletSummary }),
      },
    },
    async (request) => summary(ctx, accountOf(request).id, request.query),
  );

  r.get(
    '/api/wallet/:id',
    {
      config: { ...signed, scope: 'read' },
      schema: {
        tags,
        summary: 'One wallet movement',
        params: IdParams,
        response: withErrors({ 200: WalletSummary }),
      },
    },
    async (request) => walletMovement(ctx, accountOf(request).id, request.params.id),
  );
}

/** GET /api/payout/{id} and /api/payoutv3/{id}. */
function registerPayoutReads(r: TypedRouter, ctx: AppContext): void {
  r.get(
    '/api/payout/:id',
    {
      config: { ...signed, scope: 'read' },
      schema: {
        tags,
        summary: 'One payout',
        params: IdParams,
        response: withErrors({ 200: PayoutResponse }),
      },
    },
    async (request) => payoutById(ctx, accountOf(request).id, request.params.id),
  );

  r.get(
    '/api/payoutv3/:id',
    {
      config: { ...signed, scope: 'read' },
      schema: {
        tags,
        summary: 'One payout with its rejection reason',
        params: IdParams,
        response: withErrors({ 200: PayoutV3Response }),
      },
    },
    async (request) => payoutV3ById(ctx, accountOf(request).id, request.params.id),
  );
}

/** POST /api/sandbox/wallet/credit: test funds, registered in sandbox mode only. */
function registerSandboxCredit(r: TypedRouter, ctx: AppContext): void {
  r.post(
    '/api/sandbox/wallet/credit',
    {
      config: { ...commandConfig, scope: 'full' },
      schema: {
        tags: ['Extensions'],
        summary: "Add test funds to this account's wallet (sandbox only)",
        body: SandboxCreditBody,
        response: withErrors({ 200: SandboxCredited }),
      },
    },
    async (request, reply) =>
      runCommand(
        ctx,
        request,
        reply,
        async (tx) => {
          const account = accountOf(request);
          const currency = await knownCurrency(tx, request.body.currency ?? defaultCurrency);
          if (currency === null) throw validationError({ currency: 'invalid' });
          const reason = request.body.reason?.trim() || 'Sandbox credit';
          const credited = await creditWallet(tx, {
            accountId: account.id,
            currency,
            amountMinor: BigInt(request.body.amount),
            reason,
            kind: 'sandbox_credit',
            // The top-up stands for the money a merchant receives in production (its sales' settlements), which
            // pays the chargeback debt first (decisions 560, 905): the sandbox does the same (decision 1016).
            payDebt: true,
          });
          if (credited === null) throw validationError({ amount: 'invalid' });
          return {
            status: 'success' as const,
            identifier_wallet: credited.movementId,
            amount_available: minorAsExactInteger(credited.balanceMinor),
            currency,
          };
        },
        { auditTarget: (credited) => credited.identifier_wallet },
      ),
  );
}
