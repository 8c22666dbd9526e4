// Chooses the processor for the deployment. Production has no processor until a real one is plugged in here:
// its checkout offers no method rather than approving test cards (docs/decisions/032-payment-processors.md).
import type { Mode } from '../process/config.ts';
import type { PaymentProcessor } from './processor.ts';
import { sandboxProcessor } from './sandbox-processor.ts';

const noProcessor: PaymentProcessor = {
  name: 'none',
  supports: () => false,
  charge: async () => {
    throw new Error('no payment processor is configured for production');
  },
  refund: async () => {
    throw new Error('no payment processor is configured for production');
  },
  chargeStoredCard: async () => {
    throw new Error('no payment processor is configured for production');
  },
};

export function processorFor(mode: Mode): PaymentProcessor {
  return mode === 'sandbox' ? sandboxProcessor : noProcessor;
}
