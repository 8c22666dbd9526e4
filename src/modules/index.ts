// Every functional group, as the composition root sees it: app.ts registers each group's routes as an
// encapsulated plugin, runtime.ts collects each group's due work into the context. A new group adds one line.
import type { AppModule } from '../platform/module.ts';
import { accountModule } from './accounts/module.ts';
import { conciliationModule } from './conciliation/module.ts';
import { disputesModule } from './disputes/module.ts';
import { escrowModule } from './escrow/module.ts';
import { eventsModule } from './events/module.ts';
import { fintocModule } from './fintoc/module.ts';
import { healthModule } from './health/module.ts';
import { homeModule } from './home/module.ts';
import { mallModule } from './mall/module.ts';
import { marketplaceModule } from './marketplace/module.ts';
import { notificationsModule } from './notifications/module.ts';
import { referenceModule } from './reference/module.ts';
import { refundsModule } from './refunds/module.ts';
import { sandboxModule } from './sandbox/module.ts';
import { subscriptionsModule } from './subscriptions/module.ts';
import { transactionsModule } from './transactions/module.ts';
import { walletModule } from './wallet/module.ts';
import { checkoutRoutes } from '../checkout/routes.ts';
import { dashboardRoutes } from '../dashboard/routes.ts';

/** The checkout pages are a group of their own outside src/modules (HTML, not the API). */
const checkoutModule: AppModule = { name: 'checkout', routes: checkoutRoutes, dueWork: [] };
/** The merchant dashboard: HTML pages under /dashboard with a session of their own (docs/dashboard.md). */
const dashboardModule: AppModule = { name: 'dashboard', routes: dashboardRoutes, dueWork: [] };

/**
 * The order is also the order a drain runs the due work in (after the platform's own): event payouts, client
 * deposits, notification retries, payout resolution, then settlement and expiry. Rounds repeat until nothing
 * is left, so the order changes no result, only which handler sees a row first within a round.
 */
export const appModules: readonly AppModule[] = [
  healthModule,
  homeModule,
  referenceModule,
  accountModule,
  sandboxModule,
  eventsModule,
  marketplaceModule,
  notificationsModule,
  walletModule,
  fintocModule,
  transactionsModule,
  refundsModule,
  escrowModule,
  disputesModule,
  subscriptionsModule,
  conciliationModule,
  mallModule,
  checkoutModule,
  dashboardModule,
];
