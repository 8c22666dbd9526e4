// The events group: Events with beneficiaries paid on the event's payment date.
import type { AppModule } from '../../platform/module.ts';
import { eventRoutes } from './routes.ts';
import { runEventPayouts } from './payouts.ts';

export const eventsModule: AppModule = {
  name: 'events',
  routes: eventRoutes,
  dueWork: [{ name: 'event-beneficiary-payouts', run: runEventPayouts }],
};
