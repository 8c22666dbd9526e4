// The subscriptions group (reference §7 Subscription, §8 Consumption subscription).
import type { AppModule } from '../../platform/module.ts';
import { subscriptionRoutes } from './routes.ts';
import { runBilling } from './billing.ts';
import { runCardRemovals } from './card-removals.ts';
import { subscriptionLimits } from '../../limits/index.ts';

export const subscriptionsModule: AppModule = {
  name: 'subscriptions',
  routes: subscriptionRoutes,
  // Recurring cycles, their retries and suspensions on each account's clock (decision 101).
  // Oneclick inscriptions of cards no subscription can charge any more, deleted at Transbank (decision 990).
  dueWork: [
    { name: 'subscription-billing', run: runBilling },
    // Each removal is a Transbank call: a backlog is sent at a bounded pace (decision 1065).
    {
      name: 'oneclick-card-removals',
      run: runCardRemovals,
      drainMax: subscriptionLimits.cardRemovalsPerBeatMax,
    },
  ],
};
