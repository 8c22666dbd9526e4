// The wallet group: Wallet, bank accounts and payouts.
import type { AppModule } from '../../platform/module.ts';
import { walletRoutes } from './routes.ts';
import { resolveDuePayouts } from './payout-due-resolve.ts';

export const walletModule: AppModule = {
  name: 'wallet',
  routes: walletRoutes,
  dueWork: [{ name: 'payout-resolution', run: resolveDuePayouts }],
};
