// The accounts module's routes: GET /api/account, the merchant's own account (accounts are created by the CLI).
import type { AppModule } from '../../platform/module.ts';
import { accountRoutes } from './routes.ts';

export const accountModule: AppModule = {
  name: 'account',
  routes: accountRoutes,
  dueWork: [],
};
