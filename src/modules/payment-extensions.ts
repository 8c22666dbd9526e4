// The payment extensions this build offers, in the order their create fields are checked: the one place that
// names them. The composition (src/runtime.ts) hands the list to transactions as ctx.paymentExtensions; adding an
// extension means implementing PaymentExtension (src/modules/transactions/extension.ts) in its own folder and
// listing it here.
import { escrowHold } from './escrow/hold.ts';
import { eventExtension } from './events/extension.ts';
import { marketplaceExtension } from './marketplace/extension.ts';
import type { PaymentExtension, SettlementHold } from './transactions/extension.ts';

export const paymentExtensions: readonly PaymentExtension[] = [
  marketplaceExtension,
  eventExtension,
];

/** The extensions that may hold a settled sale's merchant part instead of crediting the wallet (decision 115). */
export const settlementHolds: readonly SettlementHold[] = [escrowHold];
