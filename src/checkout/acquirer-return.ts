// Where Webpay Plus sends the payer back (the `return_url` of every Webpay transaction), by GET or POST:
//   token_ws                      the payer paid on Transbank's page: commit and show the result;
//   TBK_TOKEN (+ order, session)  the payer cancelled ("Anular compra y volver"): the transaction is rejected;
//   TBK_ORDEN_COMPRA only         Transbank's form timed out: rejected too.
// A reload finds the session already decided and commits nothing twice (redirect-finish.ts, decision 150).
import { Type, type Static } from 'typebox';
import type { AppContext } from '../platform/context.ts';
import { transactionLimits } from '../limits/index.ts';
import { abandonRedirectPayment } from '../modules/transactions/redirect-abandon.ts';
import { finishRedirectPayment } from '../modules/transactions/redirect-finish.ts';
import type { ReturnResult } from '../modules/transactions/redirect-session.ts';
import type { CheckoutRouter } from './page-kinds.ts';
import { answerReturn } from './return-answer.ts';
import { storableInput } from '../platform/http/input-guards.ts';

const returnPath = '/gateway/webpay/return';

export function acquirerReturnUrl(ctx: AppContext): string {
  return `${ctx.config.publicBaseUrl}${returnPath}`;
}

const text = Type.Optional(Type.String({ maxLength: transactionLimits.acquirer.tokenLengthMax }));
const ReturnParams = Type.Object({
  token_ws: text,
  TBK_TOKEN: text,
  TBK_ORDEN_COMPRA: text,
  TBK_ID_SESION: text,
});
type ReturnParams = Static<typeof ReturnParams>;

async function decide(ctx: AppContext, p: ReturnParams, ip: string): Promise<ReturnResult | null> {
  // A posted token no database can hold (a NUL) names no payment: the page of a bad link (decision 860).
  if (!storableInput({ params: undefined, query: undefined, body: p })) return null;
  // TBK_TOKEN first: with both present, the payer hit an error on Transbank's form and nothing was authorised.
  if (p.TBK_TOKEN !== undefined && p.TBK_TOKEN !== '')
    return abandonRedirectPayment(ctx, { token: p.TBK_TOKEN }, ip);
  if (p.token_ws !== undefined && p.token_ws !== '')
    return finishRedirectPayment(ctx, p.token_ws, ip);
  if (p.TBK_ORDEN_COMPRA !== undefined && p.TBK_ORDEN_COMPRA !== '')
    return abandonRedirectPayment(ctx, { attemptId: p.TBK_ORDEN_COMPRA }, ip);
  return null;
}

export function registerAcquirerReturn(r: CheckoutRouter, ctx: AppContext): void {
  r.get(
    returnPath,
    { config: { auth: 'none' }, schema: { hide: true, querystring: ReturnParams } },
    async (request, reply) =>
      answerReturn(ctx, reply, await decide(ctx, request.query, request.ip), 'card'),
  );
  r.post(
    returnPath,
    { config: { auth: 'none' }, schema: { hide: true, body: ReturnParams } },
    async (request, reply) =>
      answerReturn(ctx, reply, await decide(ctx, request.body, request.ip), 'card'),
  );
}
