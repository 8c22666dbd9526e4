// The card-enrolment page of subscriptions at /gateway/registrosuscripcion?tipoplan=…&plan=true&token=…&validacion=…
// (reference §7.0 step 3, §7.12): the payer types a card, a CLP 50 charge checks it and is refunded at once, and
// the subscription becomes active. Same look, headers and no-JavaScript rule as the transaction's checkout.
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../platform/context.ts';
import { limits } from '../limits/index.ts';
import { formatDate } from '../platform/time/time-format.ts';
import { enrolCard } from '../modules/subscriptions/enrolment.ts';
import {
  enrolmentContext,
  enrolmentNow,
  type EnrolmentContext,
} from '../modules/subscriptions/enrolment-query.ts';
import { sendPage } from './html.ts';
import { invalidLinkPage } from './pages.ts';
import { enrolmentFormPage, enrolmentResultPage } from './enrolment-html.ts';
import { parseCardForm } from './forms.ts';
import { formProblems } from './form-problems.ts';
import type { CheckoutPageKind, CheckoutRouter } from './page-kinds.ts';
import { oneclickEnrolmentPage, registerOneclickEnrolment } from './oneclick-enrolment-pages.ts';

const field = Type.Optional(Type.String({ maxLength: limits.checkoutFieldLengthMax }));
const LinkQuery = Type.Object({
  token: Type.String({ maxLength: limits.checkoutFieldLengthMax }),
  validacion: Type.String({ maxLength: limits.checkoutFieldLengthMax }),
  tipoplan: field,
  plan: field,
});
const EnrolForm = Type.Object({
  token: Type.String({ maxLength: limits.checkoutFieldLengthMax }),
  validacion: Type.String({ maxLength: limits.checkoutFieldLengthMax }),
  card_number: field,
  expiry: field,
  cvv: field,
});

/** The payment method code whose card form takes no instalments (Webpay, reference §1.1). */
const singlePayment = 1;

function register(r: CheckoutRouter, ctx: AppContext): void {
  registerOneclickEnrolment(r, ctx);
  function show(reply: FastifyReply, view: EnrolmentContext): FastifyReply {
    // An ended subscription says so, even when its card was enrolled (decision 1060).
    if (!view.open) return sendPage(reply, 200, enrolmentResultPage(view, 'closed', null));
    if (view.enrolled) return sendPage(reply, 200, enrolmentResultPage(view, 'enrolled', null));
    // Production takes no card on Cobro's page: the payer registers it on Transbank's (Oneclick, issue 33).
    if (ctx.config.mode === 'production')
      return sendPage(reply, 200, oneclickEnrolmentPage(view, []));
    return sendPage(reply, 200, enrolmentFormPage(view, []));
  }

  r.get(
    '/gateway/registrosuscripcion',
    { config: { auth: 'none' }, schema: { hide: true, querystring: LinkQuery } },
    async (request, reply) => {
      const view = await enrolmentContext(ctx, request.query.token, request.query.validacion);
      if (view === null) return sendPage(reply, 404, invalidLinkPage());
      return show(reply, view);
    },
  );

  r.post(
    '/gateway/registrosuscripcion',
    {
      config: { auth: 'none' },
      bodyLimit: limits.checkoutFormBytesMax,
      schema: { hide: true, body: EnrolForm },
    },
    async (request, reply) => {
      const form = request.body;
      const view = await enrolmentContext(ctx, form.token, form.validacion);
      if (view === null) return sendPage(reply, 404, invalidLinkPage());
      if (view.enrolled || !view.open || ctx.config.mode === 'production') return show(reply, view);
      const month = formatDate(
        await ctx.accountClock.now(view.accountId, ctx.db),
        ctx.config.timeZone,
      ).slice(0, 7);
      const parsed = parseCardForm(form, singlePayment, month);
      if (!parsed.ok) return sendPage(reply, 422, enrolmentFormPage(view, parsed.problems));
      const outcome = await enrolCard(ctx, view.token, parsed.value.card);
      switch (outcome.kind) {
        case 'enrolled': // read again: the card just made a suspended subscription active
          return sendPage(
            reply,
            200,
            enrolmentResultPage(await enrolmentNow(ctx, view), 'enrolled', null),
          );
        case 'declined':
          return sendPage(reply, 200, enrolmentFormPage(view, formProblems(outcome.payerMessage)));
        case 'in_progress':
          return sendPage(reply, 200, enrolmentResultPage(view, 'processing', null));
        case 'closed':
          return sendPage(reply, 200, enrolmentResultPage(view, 'closed', null));
        default: {
          const never: never = outcome;
          return never;
        }
      }
    },
  );
}

export const enrolmentPages: CheckoutPageKind = { kind: 'enrolment', register };
