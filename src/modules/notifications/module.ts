// The notifications group: merchant and operator access to callback deliveries.
import type { AppModule } from '../../platform/module.ts';
import { deliverDueNotifications } from '../../platform/notifications/deliver.ts';
import { notificationRoutes } from './routes.ts';

export const notificationsModule: AppModule = {
  name: 'notifications',
  routes: notificationRoutes,
  dueWork: [
    {
      // The background notifications worker delivers on its own; advancing a sandbox clock delivers that account's
      // retries that became due at once, so a merchant (or a test) sees the retry without waiting.
      name: 'notifications',
      run: (ctx, scope) =>
        scope.accountId === undefined
          ? Promise.resolve(0)
          : deliverDueNotifications(ctx, { accountId: scope.accountId, limit: scope.limit }),
    },
  ],
};
