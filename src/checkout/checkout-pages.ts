// The page kinds this build's checkout serves, one entry per kind (page-kinds.ts names the kinds).
import assert from 'node:assert/strict';
import { checkoutPageKindNames, type CheckoutPageKind } from './page-kinds.ts';
import { transactionPages } from './transaction-pages.ts';
import { enrolmentPages } from './enrolment-pages.ts';
import { mallPages } from './mall-pages.ts';

export const checkoutPages: readonly CheckoutPageKind[] = [
  transactionPages,
  enrolmentPages,
  mallPages,
];

// Every named kind has its pages, and only once: checked when the module loads, so a half-added kind fails at start-up.
assert.deepEqual(
  checkoutPages.map((p) => p.kind).sort(),
  [...checkoutPageKindNames].sort(),
  'one page entry per checkout page kind',
);
