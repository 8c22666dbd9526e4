// The reference group: Reference data (banks, regions, ...).
import type { AppModule } from '../../platform/module.ts';
import { referenceRoutes } from './routes.ts';

export const referenceModule: AppModule = {
  name: 'reference',
  routes: referenceRoutes,
  dueWork: [],
};
