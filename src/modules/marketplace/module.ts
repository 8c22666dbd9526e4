// The marketplace group: Marketplace clients and split payments.
import type { AppModule } from '../../platform/module.ts';
import { marketplaceRoutes } from './routes.ts';
import { runClientDeposits } from './deposits.ts';

export const marketplaceModule: AppModule = {
  name: 'marketplace',
  routes: marketplaceRoutes,
  dueWork: [{ name: 'marketplace-client-deposits', run: runClientDeposits }],
};
