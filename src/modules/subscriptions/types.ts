// Table types of subscriptions (migrations 0100-0109, 0210-0214), merged into the shared Database interface.
import type { Generated } from 'kysely';
import type { Int8, Timestamp } from '../../platform/db/types.ts';
import type { SubscriptionStatus } from './states.ts';

/** Cobro's pricing extension of a plan (decision 100). */
export const planTypes = ['fixed', 'variable', 'consumption'] as const;
export type PlanType = (typeof planTypes)[number];
export const planIntervals = ['day', 'week', 'month', 'year'] as const;
export type PlanInterval = (typeof planIntervals)[number];

interface SuClientTable {
  seq: Generated<bigint>;
  id: string;
  account_id: string;
  email: string;
  /**
   * 0, or the age rank of a live client whose e-mail differed only in case from an older one's when migration 0740
   * made e-mails unique in any case (decision 910): unique with lower(email) among an account's live clients.
   */
  email_twin: Generated<number>;
  name: string;
  rut: string | null;
  phone: string;
  address: string | null;
  country: string | null;
  region: string | null;
  city: string | null;
  postal_code: string | null;
  /** The merchant's map as JSON text (at most 4000 characters). */
  additional_parameters: string | null;
  created_at: Timestamp;
  updated_at: Timestamp | null;
  deleted_at: Timestamp | null;
}

interface SuPlanTable {
  seq: Generated<bigint>;
  id: string;
  account_id: string;
  status: 'active';
  name: string;
  code: string;
  description: string;
  url_notify_suscription: string;
  url_notify_payment: string;
  url_success_payment: string;
  url_failed_payment: string;
  type: PlanType;
  amount_minor: Int8 | null;
  currency: string;
  interval_unit: PlanInterval;
  interval_count: number;
  trial_days: number;
  retries_max: number;
  created_at: Timestamp;
  updated_at: Timestamp | null;
}

interface SuSubscriptionTable {
  seq: Generated<bigint>;
  id: string;
  account_id: string;
  client_id: string;
  plan_id: string;
  status: SubscriptionStatus;
  /** The amount of a variable plan's subscription; null otherwise (fixed plans charge the plan's). */
  amount_minor: Int8 | null;
  coupon: string | null;
  created_at: Timestamp;
  activated_at: Timestamp | null;
  ended_at: Timestamp | null;
  /** When the next billing cycle is due (active fixed and variable subscriptions). */
  next_cycle_at: Timestamp | null;
  cycles_started: Generated<number>;
}

interface SuStatusLogTable {
  seq: Generated<bigint>;
  subscription_id: string;
  changed_at: Timestamp;
  initial_status: SubscriptionStatus | null;
  final_status: SubscriptionStatus;
}

interface SuCardTable {
  seq: Generated<bigint>;
  id: string;
  account_id: string;
  client_id: string;
  subscription_id: string;
  brand: string;
  last4: string;
  /** The processor's token for the card: never the card number or its security code. */
  processor_token: string;
  created_at: Timestamp;
  deleted_at: Timestamp | null;
}

interface SuEnrolmentTable {
  token: string;
  account_id: string;
  subscription_id: string;
  validacion: string;
  created_at: Timestamp;
  used_at: Timestamp | null;
  card_id: string | null;
  /** The verification charge in flight: its processor key and lease (a crashed attempt's runs out). */
  attempt_key: string | null;
  attempt_lease_until: Timestamp | null;
}

const cycleStatuses = [
  'pending',
  'success',
  'retry',
  'maximum attempt limit',
  'canceled by customer',
  'canceled by paymaster',
] as const;
type CycleStatus = (typeof cycleStatuses)[number];

/** A cycle waiting for a try, its first or a retry: what billing charges, and what ends with its subscription. */
export const waitingCycleStatuses = ['pending', 'retry'] as const satisfies readonly CycleStatus[];

/** One billing cycle of a fixed or variable subscription: `paid[]` of the v3 list. */
export interface SuCycleTable {
  subscription_id: string;
  cycle_number: number;
  account_id: string;
  due_at: Timestamp;
  amount_minor: Int8;
  status: CycleStatus;
  try_number: Generated<number>;
  next_try_at: Timestamp | null;
  /** The processor idempotency key of the attempt in flight, with its lease (a crashed worker's runs out). */
  attempt_key: string | null;
  attempt_lease_until: Timestamp | null;
  paid_at: Timestamp | null;
}

const chargeKinds = ['verification', 'cycle', 'consumption'] as const;
export type ChargeKind = (typeof chargeKinds)[number];

/** Links a subscription to each payment (a `transactions` row) made on its card. */
interface SuChargeTable {
  seq: Generated<bigint>;
  account_id: string;
  subscription_id: string;
  transaction_id: string;
  kind: ChargeKind;
  cycle_number: number | null;
  order_ref: string;
  description: string;
  created_at: Timestamp;
  /** The card charged (migration 0102). */
  card_id: string | null;
  /** A cycle charge's attempt, 1 for the first try (migration 0210); null for other kinds. */
  try_number: number | null;
}

declare module '../../platform/db/types.ts' {
  interface Database {
    su_clients: SuClientTable;
    su_plans: SuPlanTable;
    su_subscriptions: SuSubscriptionTable;
    su_status_logs: SuStatusLogTable;
    su_cards: SuCardTable;
    su_enrolments: SuEnrolmentTable;
    su_cycles: SuCycleTable;
    su_charges: SuChargeTable;
  }
}
