// The Fintoc group (issue 34): its webhook, the due work that sends production payouts as Fintoc transfers, the one
// that closes a checkout session at Fintoc once Cobro's hold on its sale ran out (decision 665), and the one that
// finishes a late success stopped after its claim (decision 1215), paced a beat.
import type { AppModule } from '../../platform/module.ts';
import { dispatchFintocPayouts } from './payout-dispatch.ts';
import { fintocWebhookRoutes } from './webhook.ts';
import { closeLapsedFintocSessions } from './session-close.ts';
import { recoverDeadLateClaims } from './late-claim-recover.ts';
import { fintocLimits } from '../../limits/index.ts';

export const fintocModule: AppModule = {
  name: 'fintoc',
  routes: fintocWebhookRoutes,
  dueWork: [
    { name: 'fintoc-payout-dispatch', run: dispatchFintocPayouts },
    { name: 'fintoc-session-close', run: closeLapsedFintocSessions },
    {
      name: 'fintoc-late-claim-recover',
      run: recoverDeadLateClaims,
      drainMax: fintocLimits.lateClaimsPerBeatMax,
    },
  ],
};
