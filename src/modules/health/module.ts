// The health group: Liveness and readiness.
import type { AppModule } from '../../platform/module.ts';
import { healthRoutes } from './routes.ts';

export const healthModule: AppModule = {
  name: 'health',
  routes: healthRoutes,
  dueWork: [],
};
