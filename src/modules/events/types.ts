// Table types of events (migration 0041), merged into the shared Database interface.
import type { Generated } from 'kysely';
import type { Int8, Timestamp } from '../../platform/db/types.ts';

const beneficiaryStatuses = ['pending', 'paid'] as const;
type BeneficiaryStatus = (typeof beneficiaryStatuses)[number];

interface EventTable {
  id: string;
  account_id: string;
  /** The merchant's own event identifier (`event` in the request, `id` in responses). */
  code: string;
  name: string;
  date_event_at: Timestamp;
  /** False when the merchant sent a date without a time: the event stands for that whole day. */
  date_event_timed: boolean;
  date_payment_at: Timestamp;
  date_payment_timed: boolean;
  closing_sales_at: Timestamp;
  url_event: string | null;
  url_logo: string | null;
  service_sale_minor: Int8;
  /** Fixed by the first sale: one event sells in one currency. */
  currency: string | null;
  payout_status: 'scheduled' | 'done';
  created_at: Timestamp;
}

interface EventBeneficiaryTable {
  id: string;
  event_id: string;
  position: number;
  email: string;
  bps: number;
  status: BeneficiaryStatus;
  paid_minor: Int8;
  paid_at: Timestamp | null;
}

interface EventSaleTable {
  transaction_id: string;
  event_id: string;
  account_id: string;
  currency: string;
  gross_minor: Int8;
  fee_minor: Int8;
  net_minor: Int8;
  service_sale_minor: Int8;
  affiliate_minor: Int8;
  /** What refunds took back (decision 116): of the gross, the fee, the net and the beneficiaries' parts. */
  refunded_minor: Generated<bigint>;
  fee_refunded_minor: Generated<bigint>;
  net_refunded_minor: Generated<bigint>;
  affiliate_refunded_minor: Generated<bigint>;
  sold_at: Timestamp;
  settled_at: Timestamp | null;
}

interface EventSaleShareTable {
  transaction_id: string;
  beneficiary_id: string;
  amount_minor: Int8;
  /** What refunds took back of this part (decision 116). */
  refunded_minor: Generated<bigint>;
  /** When the event's payout swept this part out of the beneficiary's payable (decision 650); null while it waits. */
  paid_out_at: Timestamp | null;
}

declare module '../../platform/db/types.ts' {
  interface Database {
    events: EventTable;
    event_beneficiaries: EventBeneficiaryTable;
    event_sales: EventSaleTable;
    event_sale_shares: EventSaleShareTable;
  }
}
