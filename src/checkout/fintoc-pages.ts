// The checkout's pages for a bank transfer through Fintoc (issue 34): one button to start, then a plain link to
// Fintoc's hosted page (its checkout session's redirect_url). No JavaScript and no Fintoc widget on Cobro's pages:
// a link is not a form target, so the pages' CSP stays `form-action 'self'` (decision 511).
import { formatMoney, html, type Page } from './html.ts';
import {
  checkoutPath,
  errors,
  hidden,
  summary,
  type LinkParams,
  type MethodOption,
  type OrderSummary,
} from './pages.ts';

export function fintocMethodPage(
  o: OrderSummary,
  link: LinkParams,
  method: MethodOption,
  problems: readonly string[],
  back: boolean,
): Page {
  const body = html`${summary(o)}<h2>${method.name}</h2>${errors(problems)}
<p class="muted">Pagarás con una transferencia desde tu banco en la página segura de Fintoc.</p>
<form method="post" action="/gateway/cobro">${hidden(link, method.payment)}<button type="submit" data-testid="pay-fintoc">Pagar ${formatMoney(o.amountMinor, o.currency)} con transferencia</button></form>
${back ? html`<p class="muted"><a href="${checkoutPath(link)}">Elegir otro medio de pago</a></p>` : null}`;
  return { title: `${method.name} · ${o.merchant}`, body };
}

export function fintocLeavePage(o: OrderSummary, url: string): Page {
  const body = html`${summary(o)}<h2>Continúa en Fintoc</h2><p class="muted">Te llevaremos a la página de Fintoc para elegir tu banco y autorizar la transferencia.</p>
<a class="button" href="${url}" data-testid="continue-fintoc">Continuar a Fintoc</a>`;
  return { title: `Fintoc · ${o.merchant}`, body };
}
