// The payment extensions this build offers, in the order their create fields are checked: the one place that
// names them. The composition (src/runtime.ts) hands the list to transactions as ctx.paymentExtensions; adding an
// extension means implementing PaymentExtension (src/modules/transactions/extension.ts) in its own folder and
// listing it here.
import { eventExtension } from './events/extension.ts';
import { marketplaceExtension } from './marketplace/extension.ts';
import type { PaymentExtension } from './transactions/extension.ts';

export const paymentExtensions: readonly PaymentExtension[] = [marketplaceExtension, eventExtension];
