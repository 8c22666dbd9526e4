// The refunds group (seed "Nullification"): refunds of paid transactions and their dispatch to the processor.
import type { AppModule } from '../../platform/module.ts';
import { runRefundDispatch } from './dispatch.ts';
import { refundRoutes } from './routes.ts';

export const refundsModule: AppModule = {
  name: 'refunds',
  routes: refundRoutes,
  dueWork: [
    { name: 'refund-dispatch', run: runRefundDispatch },
  ],
};
