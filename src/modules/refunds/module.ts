// The refunds group (seed "Nullification"): refunds of paid transactions, their collection and their dispatch to the processor.
import type { AppModule } from '../../platform/module.ts';
import { runRefundCollection } from './collection.ts';
import { runRefundDispatch } from './dispatch.ts';
import { refundRoutes } from './routes.ts';

export const refundsModule: AppModule = {
  name: 'refunds',
  routes: refundRoutes,
  dueWork: [
    // Collection first, so a refund completed by this drain's settlement is dispatched in the same round.
    { name: 'refund-collection', run: runRefundCollection },
    { name: 'refund-dispatch', run: runRefundDispatch },
  ],
};
