// The enrolment page in production (issue 33): the payer registers the card on Transbank's Oneclick page, never
// on Cobro's. "Registrar tarjeta" starts the inscription and continues to Transbank with a form posting TBK_TOKEN
// (no JavaScript); Transbank sends the payer back to /gateway/oneclick/return, where Cobro finishes it.
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../platform/context.ts';
import { limits, transactionLimits } from '../limits/index.ts';
import {
  enrolmentContext,
  enrolmentNow,
  type EnrolmentContext,
} from '../modules/subscriptions/enrolment-query.ts';
import {
  finishOneclickEnrolment,
  inscriptionOf,
  oneclickReturnPath,
  startOneclickEnrolment,
} from '../modules/subscriptions/oneclick-enrolment.ts';
import { html, sendPage, type Page } from './html.ts';
import { invalidLinkPage } from './pages.ts';
import { enrolmentResultPage, summary } from './enrolment-html.ts';
import type { CheckoutRouter } from './page-kinds.ts';

const startPath = '/gateway/registrosuscripcion/oneclick';

/** The enrolment page of a production account: one button to Transbank's page. */
export function oneclickEnrolmentPage(view: EnrolmentContext, problems: readonly string[]): Page {
  const errors =
    problems.length === 0
      ? null
      : html`<div class="error" role="alert">${problems.map((p) => html`<div>${p}</div>`)}</div>`;
  const body = html`${summary(view)}<h2>Registra tu tarjeta</h2>
<p class="muted">Registrarás tu tarjeta en la página de Transbank (Oneclick). Cobro no ve ni guarda su número.</p>${errors}
<form method="post" action="${startPath}"><input type="hidden" name="token" value="${view.token}"><input type="hidden" name="validacion" value="${view.validacion}">
<button type="submit" data-testid="oneclick-start">Registrar tarjeta en Transbank</button></form>`;
  return { title: `Suscripción ${view.planName} · ${view.merchant}`, body };
}

function continuePage(view: EnrolmentContext, url: string, token: string): Page {
  const body = html`${summary(view)}<h2>Continúa en Transbank</h2><p class="muted">Te llevaremos a la página de Transbank para registrar tu tarjeta.</p>
<form method="post" action="${url}"><input type="hidden" name="TBK_TOKEN" value="${token}"><button type="submit" data-testid="oneclick-continue">Continuar a Transbank</button></form>`;
  return { title: `Oneclick · ${view.merchant}`, body, formOrigin: new URL(url).origin };
}

const Link = Type.Object({
  token: Type.String({ maxLength: limits.checkoutFieldLengthMax }),
  validacion: Type.String({ maxLength: limits.checkoutFieldLengthMax }),
});
const tbkText = Type.Optional(
  Type.String({ maxLength: transactionLimits.acquirer.tokenLengthMax }),
);
const ReturnParams = Type.Object({
  TBK_TOKEN: tbkText,
  TBK_ORDEN_COMPRA: tbkText,
  TBK_ID_SESION: tbkText,
});

async function finish(
  ctx: AppContext,
  reply: FastifyReply,
  tbkToken: string | undefined,
): Promise<FastifyReply> {
  const known = tbkToken === undefined ? undefined : await inscriptionOf(ctx, tbkToken);
  const view =
    known === undefined ? null : await enrolmentContext(ctx, known.token, known.validacion);
  if (view === null || tbkToken === undefined) return sendPage(reply, 404, invalidLinkPage());
  if (!view.open) return sendPage(reply, 200, enrolmentResultPage(view, 'closed', null));
  if (view.enrolled) return sendPage(reply, 200, enrolmentResultPage(view, 'enrolled', null));
  const outcome = await finishOneclickEnrolment(ctx, tbkToken);
  if (outcome.kind === 'failed' || outcome.kind === 'declined')
    return sendPage(reply, 200, oneclickEnrolmentPage(view, [outcome.payerMessage]));
  return sendPage(
    reply,
    200,
    enrolmentResultPage(
      outcome.kind === 'enrolled' ? await enrolmentNow(ctx, view) : view,
      outcome.kind === 'in_progress' ? 'processing' : outcome.kind,
      null,
    ),
  );
}

export function registerOneclickEnrolment(r: CheckoutRouter, ctx: AppContext): void {
  r.post(
    startPath,
    {
      config: { auth: 'none' },
      bodyLimit: limits.checkoutFormBytesMax,
      schema: { hide: true, body: Link },
    },
    async (request, reply) => {
      const view = await enrolmentContext(ctx, request.body.token, request.body.validacion);
      if (view === null) return sendPage(reply, 404, invalidLinkPage());
      if (!view.open) return sendPage(reply, 200, enrolmentResultPage(view, 'closed', null));
      if (view.enrolled) return sendPage(reply, 200, enrolmentResultPage(view, 'enrolled', null));
      const started = await startOneclickEnrolment(ctx, view);
      if (started.kind === 'redirect')
        return sendPage(reply, 200, continuePage(view, started.url, started.token));
      const problem =
        started.kind === 'unavailable'
          ? 'Transbank no responde. No se registró ninguna tarjeta; inténtalo de nuevo en unos segundos.'
          : 'Este comercio aún no puede registrar tarjetas.';
      return sendPage(
        reply,
        started.kind === 'unavailable' ? 503 : 200,
        oneclickEnrolmentPage(view, [problem]),
      );
    },
  );
  r.get(
    oneclickReturnPath,
    { config: { auth: 'none' }, schema: { hide: true, querystring: ReturnParams } },
    async (request, reply) => finish(ctx, reply, request.query.TBK_TOKEN),
  );
  r.post(
    oneclickReturnPath,
    { config: { auth: 'none' }, schema: { hide: true, body: ReturnParams } },
    async (request, reply) => finish(ctx, reply, request.body.TBK_TOKEN),
  );
}
