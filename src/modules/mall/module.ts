// The mall group: one payment for several stores (reference §5; decision 122). Its checkout page kind lives in
// src/checkout/mall-pages.ts.
import type { AppModule } from '../../platform/module.ts';
import { mallRoutes } from './routes.ts';

export const mallModule: AppModule = {
  name: 'mall',
  routes: mallRoutes,
  dueWork: [],
};
