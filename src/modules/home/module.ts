// The service's front door: GET / for a browser (what to open next) and for an API client (JSON).
import type { AppModule } from '../../platform/module.ts';
import { homeRoutes } from './routes.ts';

export const homeModule: AppModule = {
  name: 'home',
  routes: homeRoutes,
  dueWork: [],
};
