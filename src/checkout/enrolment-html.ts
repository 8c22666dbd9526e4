// The card-enrolment pages, in Spanish, in the checkout's frame (html.ts). The card number and CVV the payer
// typed are never echoed back.
import { formatMoney, html, type Html, type Page } from './html.ts';
import { subscriptionLimits } from '../limits/index.ts';
import type { EnrolmentContext } from '../modules/subscriptions/enrolment-query.ts';
import { cardFields, problemBox } from './form-html.ts';
import type { FormProblem } from './form-problems.ts';

const intervalNames: Readonly<Record<string, readonly [string, string]>> = {
  day: ['día', 'días'],
  week: ['semana', 'semanas'],
  month: ['mes', 'meses'],
  year: ['año', 'años'],
};

function every(view: EnrolmentContext): string {
  const [one, many] = intervalNames[view.interval] ?? [view.interval, view.interval];
  return view.intervalCount === 1 ? `cada ${one}` : `cada ${view.intervalCount} ${many}`;
}

export function summary(view: EnrolmentContext) {
  const price =
    view.amountMinor === null
      ? html`<div class="subject">Cobros según tu consumo, autorizados por el comercio.</div>`
      : html`<div class="amount" data-testid="amount">${formatMoney(view.amountMinor, 'CLP')}</div><div class="subject">${every(view)}</div>`;
  return html`<h1>${view.merchant}</h1><div class="merchant">Suscripción ${view.planName}</div>${price}`;
}

export function enrolmentFormPage(view: EnrolmentContext, problems: readonly FormProblem[]): Page {
  const check = formatMoney(subscriptionLimits.verificationAmountMinor, 'CLP');
  const body = html`${summary(view)}<h2>Registra tu tarjeta</h2>
<p class="muted">Para validar la tarjeta haremos un cargo de ${check} que se reembolsa de inmediato.</p>${problemBox(problems)}
<form method="post" action="/gateway/registrosuscripcion" autocomplete="on">
<input type="hidden" name="token" value="${view.token}"><input type="hidden" name="validacion" value="${view.validacion}">
${cardFields(problems)}<button type="submit">Registrar tarjeta</button></form>`;
  return { title: `Suscripción ${view.planName} · ${view.merchant}`, body, notice: 'card' };
}

export type EnrolmentResult = 'enrolled' | 'closed' | 'processing';

/**
 * What an enrolled link says (decisions 1060, 1075): suspended first (it asks for a new card link), then a link whose
 * card the merchant removed, which enrols nothing again (a link enrols one card, and a stale link must not undo the
 * merchant's removal): it names the newer card when there is one, else asks for a new link.
 */
function enrolledHeading(view: EnrolmentContext): Html {
  if (view.suspended)
    return html`<h2 class="bad" data-testid="result">Tu suscripción está suspendida</h2><p>Los cobros a la tarjeta registrada fueron rechazados. Pide al comercio un enlace para registrar otra tarjeta.</p>`;
  if (view.cardRemoved && view.hasLiveCard)
    return html`<h2 class="ok" data-testid="result">La tarjeta registrada con este enlace fue eliminada: tu suscripción está activa con otra tarjeta</h2>`;
  if (view.cardRemoved)
    return html`<h2 class="bad" data-testid="result">La tarjeta registrada con este enlace fue eliminada</h2><p>Tu suscripción no tiene una tarjeta para sus cobros. Pide al comercio un enlace para registrar otra tarjeta.</p>`;
  return html`<h2 class="ok" data-testid="result">Tarjeta registrada: tu suscripción está activa</h2>`;
}

export function enrolmentResultPage(
  view: EnrolmentContext,
  kind: EnrolmentResult,
  detail: string | null,
): Page {
  const heading = {
    enrolled: enrolledHeading(view),
    closed: html`<h2 class="bad" data-testid="result">Esta suscripción ya no está vigente</h2>`,
    processing: html`<h2 data-testid="result">Estamos validando tu tarjeta</h2>`,
  }[kind];
  // The plan's success page only while the subscription has a card to charge.
  const back =
    kind === 'enrolled' && !view.suspended && view.hasLiveCard && view.successUrl !== null
      ? html`<a class="button" href="${view.successUrl}">Volver al comercio</a>`
      : null;
  return {
    title: `Suscripción ${view.planName} · ${view.merchant}`,
    body: html`${summary(view)}${heading}${detail === null ? null : html`<p>${detail}</p>`}${back}`,
  };
}
