// The kinds of page the hosted checkout serves. Each kind registers its own routes on the checkout plugin, which
// gives them all the same form parsing, security headers and error page (routes.ts): a transaction's pages, a card
// enrolment's (subscriptions store a card) and a mall's (one payment for several stores, mall-pages.ts).
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../platform/context.ts';

export const checkoutPageKindNames = ['transaction', 'enrolment', 'mall'] as const;
type CheckoutPageKindName = (typeof checkoutPageKindNames)[number];

/** The checkout plugin's router, schema-typed by TypeBox. */
export type CheckoutRouter = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export interface CheckoutPageKind {
  readonly kind: CheckoutPageKindName;
  /** Adds the kind's pages (public: `auth: 'none'`, `schema.hide`) to the checkout plugin. */
  register(router: CheckoutRouter, ctx: AppContext): void;
}
