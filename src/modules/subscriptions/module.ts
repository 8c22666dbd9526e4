// The subscriptions group (reference §7 Subscription, §8 Consumption subscription).
import type { AppModule } from '../../platform/module.ts';
import { subscriptionRoutes } from './routes.ts';

export const subscriptionsModule: AppModule = {
  name: 'subscriptions',
  routes: subscriptionRoutes,
  dueWork: [],
};
