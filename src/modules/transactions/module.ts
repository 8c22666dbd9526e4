// The transactions group: Payments (transactions), their settlement and expiry.
import type { AppModule } from '../../platform/module.ts';
import { transactionRoutes } from './routes.ts';
import { runSettlements } from './settlement.ts';
import { runExpiries } from './expiry.ts';
import { recoverLostCommits } from './redirect-recovery.ts';
import { limits } from '../../limits/index.ts';

export const transactionsModule: AppModule = {
  name: 'transactions',
  routes: transactionRoutes,
  dueWork: [
    // Settles set-based, a chunk a transaction (decision 561): one call takes a whole chunk.
    { name: 'transaction-settlement', run: runSettlements, batchMax: limits.settlementChunkMax },
    { name: 'transaction-expiry', run: runExpiries },
    // A Webpay commit whose answer was lost: the acquirer's status decides (decision 150).
    { name: 'processor-commit-recovery', run: recoverLostCommits },
  ],
};
