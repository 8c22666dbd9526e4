// The account group: The merchant's own account.
import type { AppModule } from '../../platform/module.ts';
import { accountRoutes } from './routes.ts';

export const accountModule: AppModule = {
  name: 'account',
  routes: accountRoutes,
  dueWork: [],
};
