// Every functional group's routes, registered by app.ts. A new module adds one line here.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../platform/context.ts';
import { accountRoutes } from './account/routes.ts';
import { eventRoutes } from './events/routes.ts';
import { healthRoutes } from './health/routes.ts';
import { marketplaceRoutes } from './marketplace/routes.ts';
import { referenceRoutes } from './reference/routes.ts';
import { sandboxRoutes } from './sandbox/routes.ts';
import { notificationRoutes } from './notifications/routes.ts';
import { walletRoutes } from './wallet/routes.ts';
import { transactionRoutes } from './transactions/routes.ts';
import { checkoutRoutes } from '../checkout/routes.ts';

export type RouteModule = (app: FastifyInstance, ctx: AppContext) => Promise<void>;

export const routeModules: readonly RouteModule[] = [
  healthRoutes,
  referenceRoutes,
  accountRoutes,
  sandboxRoutes,
  notificationRoutes,
  marketplaceRoutes,
  eventRoutes,
  walletRoutes,
  transactionRoutes,
  checkoutRoutes,
];
