// What the refunds module lends other groups through the context, wired by the composition root (src/runtime.ts):
// the wallet's follower of refund payouts (decision 470) and transactions' record of a refund made outside Cobro
// (decision 1042). Each group declares its port; refunds implements it, so neither imports the other back.
import type { RefundPayoutFollower } from '../wallet/payout-transition.ts';
import type { RefundOutsideRecorder } from '../transactions/redirect-refund-outside.ts';
import { refundPayoutFollower } from './bank-payout-result.ts';
import { recordExternalRefund } from './refund-external.ts';

export const refundPorts: {
  readonly refundPayouts: RefundPayoutFollower;
  readonly refundsOutside: RefundOutsideRecorder;
} = {
  refundPayouts: refundPayoutFollower,
  refundsOutside: { record: recordExternalRefund },
};
