// The Fintoc group (issue 34): its webhook, and the due work that sends production payouts as Fintoc transfers.
import type { AppModule } from '../../platform/module.ts';
import { dispatchFintocPayouts } from './payout-dispatch.ts';
import { fintocWebhookRoutes } from './webhook.ts';

export const fintocModule: AppModule = {
  name: 'fintoc',
  routes: fintocWebhookRoutes,
  dueWork: [{ name: 'fintoc-payout-dispatch', run: dispatchFintocPayouts }],
};
