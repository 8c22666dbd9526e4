// The escrow group (seed "Escrow Transaction"): POST /api/escrow. Holding happens at settlement, through the
// SettlementHold this folder implements (hold.ts), listed in src/modules/payment-extensions.ts.
import type { AppModule } from '../../platform/module.ts';
import { escrowRoutes } from './routes.ts';

export const escrowModule: AppModule = { name: 'escrow', routes: escrowRoutes, dueWork: [] };
