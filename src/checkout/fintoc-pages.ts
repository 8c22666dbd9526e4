// The checkout's pages for a bank transfer through Fintoc (issue 34): one button to start, then a plain link to
// Fintoc's hosted page (its checkout session's redirect_url). No JavaScript and no Fintoc widget on Cobro's pages:
// a link is not a form target, so the pages' CSP stays `form-action 'self'` (decision 511).
import { html, type Page } from './html.ts';
import { summary, type OrderSummary, type RedirectCopy } from './pages.ts';

export const fintocCopy: RedirectCopy = {
  notice: 'Pagarás con una transferencia desde tu banco en la página segura de Fintoc.',
  via: 'transferencia',
  testId: 'pay-fintoc',
};

export function fintocLeavePage(o: OrderSummary, url: string): Page {
  const body = html`${summary(o)}<h2>Continúa en Fintoc</h2><p class="muted">Te llevaremos a la página de Fintoc para elegir tu banco y autorizar la transferencia.</p>
<a class="button" href="${url}" data-testid="continue-fintoc">Continuar a Fintoc</a>`;
  return { title: `Fintoc · ${o.merchant}`, body };
}
