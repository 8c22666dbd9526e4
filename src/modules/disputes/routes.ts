// The merchant's disputes (decision 530, docs/disputes.md): GET /api/disputes, GET /api/disputes/{id},
// POST /api/disputes/{id}/evidence and POST /api/disputes/{id}/accept. Reads take the Bearer token; the two
// answers move or commit the account's money and need `Sign` too, like the wallet's payouts (decision 740): the
// public token alone is no secret (a mall operator holds each store's).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { accountOf } from '../../platform/auth/auth-plugin.ts';
import { notFound, validationError } from '../../platform/errors/errors.ts';
import { isStorableText } from '../../platform/http/input-guards.ts';
import { commandConfig, runCommand } from '../../platform/commands/runner.ts';
import { withErrors } from '../../platform/http/schemas.ts';
import { disputeLimits } from '../../limits/index.ts';
import { disputeAnswer } from './answers.ts';
import { submitEvidence } from './evidence.ts';
import { countDisputes, findDispute, listDisputes } from './repository.ts';
import { resolveDispute } from './resolve.ts';
import {
  DisputeGetResponse,
  DisputeIdParams,
  DisputeListQuery,
  DisputeListResponse,
  DisputeResponse,
  EvidenceBody,
} from './schemas.ts';
import { disputeView } from './views.ts';

const tags = ['Extensions'];
const signedCommand = { ...commandConfig, auth: 'sign' as const };

function isLink(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  return url.protocol === 'https:' || url.protocol === 'http:';
}

export async function disputeReadRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    '/api/disputes',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: "The account's disputes (chargebacks), newest first",
        querystring: DisputeListQuery,
        response: withErrors({ 200: DisputeListResponse }),
      },
    },
    async (request) => {
      const accountId = accountOf(request).id;
      const limit = request.query.per_page ?? disputeLimits.perPageDefault;
      const offset = ((request.query.page ?? 1) - 1) * limit;
      const [rows, total] = await Promise.all([
        listDisputes(ctx.db, accountId, { offset, limit }),
        countDisputes(ctx.db, accountId),
      ]);
      return {
        status: 'success' as const,
        disputes: rows.map((row) => disputeView(row, ctx.config.timeZone)),
        total,
      };
    },
  );
  r.get(
    '/api/disputes/:id',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: 'A dispute: amount, reason, state, the deadline to answer and the evidence sent',
        params: DisputeIdParams,
        response: withErrors({ 200: DisputeGetResponse }),
      },
    },
    async (request) => {
      const id = request.params.id;
      const row = isStorableText(id)
        ? await findDispute(ctx.db, accountOf(request).id, id)
        : undefined;
      if (row === undefined) throw notFound('dispute');
      return { status: 'success' as const, dispute: disputeView(row, ctx.config.timeZone) };
    },
  );
}

export async function disputeAnswerRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/api/disputes/:id/evidence',
    {
      config: { ...signedCommand, scope: 'payments' },
      schema: {
        tags,
        summary: 'Answer a dispute before its respond_by: text and links; it moves to under_review',
        params: DisputeIdParams,
        body: EvidenceBody,
        response: withErrors({ 200: DisputeResponse }),
      },
    },
    async (request, reply) => {
      const urls = request.body.urls ?? [];
      if (!urls.every(isLink)) throw validationError({ urls: 'each must be an http(s) URL' });
      return runCommand(ctx, request, reply, async (tx, db) =>
        disputeAnswer(
          tx,
          await submitEvidence(tx, db, accountOf(request).id, request.params.id, {
            text: request.body.text,
            urls,
          }),
        ),
      );
    },
  );
  r.post(
    '/api/disputes/:id/accept',
    {
      config: { ...signedCommand, scope: 'full' },
      schema: {
        tags,
        summary: 'Concede a dispute: its money goes to the acquirer, as for a lost one',
        params: DisputeIdParams,
        response: withErrors({ 200: DisputeResponse }),
      },
    },
    async (request, reply) =>
      runCommand(ctx, request, reply, async (tx, db) =>
        disputeAnswer(
          tx,
          await resolveDispute(tx, db, {
            accountId: accountOf(request).id,
            id: request.params.id,
            to: 'accepted',
          }),
        ),
      ),
  );
}
