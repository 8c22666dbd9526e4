// The Fintoc group (issue 34): its webhook, the due work that sends production payouts as Fintoc transfers, and the
// one that closes a checkout session at Fintoc once Cobro's hold on its sale ran out (decision 665).
import type { AppModule } from '../../platform/module.ts';
import { dispatchFintocPayouts } from './payout-dispatch.ts';
import { fintocWebhookRoutes } from './webhook.ts';
import { closeLapsedFintocSessions } from './session-close.ts';

export const fintocModule: AppModule = {
  name: 'fintoc',
  routes: fintocWebhookRoutes,
  dueWork: [
    { name: 'fintoc-payout-dispatch', run: dispatchFintocPayouts },
    { name: 'fintoc-session-close', run: closeLapsedFintocSessions },
  ],
};
