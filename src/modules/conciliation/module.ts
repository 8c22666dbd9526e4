// The conciliation group: settlement batches reported for accountants (seed "Conciliation"; decision 120).
import type { AppModule } from '../../platform/module.ts';
import { conciliationRoutes } from './routes.ts';

export const conciliationModule: AppModule = {
  name: 'conciliation',
  routes: conciliationRoutes,
  dueWork: [],
};
