// The sandbox group: Sandbox-only controls (the account clock).
import type { AppModule } from '../../platform/module.ts';
import { sandboxRoutes } from './routes.ts';

export const sandboxModule: AppModule = {
  name: 'sandbox',
  routes: sandboxRoutes,
  dueWork: [],
};
