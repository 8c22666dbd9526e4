// The services every context carries besides its database, clock and logger: the ledger, the payment processor
// and the payment extensions. One function, so the runtime and the tests' contexts are composed alike.
import { paymentExtensions } from './modules/payment-extensions.ts';
import type { Config } from './platform/config.ts';
import { createLedger } from './platform/ledger/sql-ledger.ts';
import { processorFor } from './platform/processors/index.ts';

export function contextServices(config: Config) {
  return { ledger: createLedger(), processor: processorFor(config.mode), paymentExtensions } as const;
}
