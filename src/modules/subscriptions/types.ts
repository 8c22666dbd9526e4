// Table types of subscriptions (migrations 0100-0109), merged into the shared Database interface.
import type { Generated } from 'kysely';
import type { Int8, Timestamp } from '../../platform/db/types.ts';

/** Cobro's pricing extension of a plan (decision 100). */
export const planTypes = ['fixed', 'variable', 'consumption'] as const;
export type PlanType = (typeof planTypes)[number];
export const planIntervals = ['day', 'week', 'month', 'year'] as const;
export type PlanInterval = (typeof planIntervals)[number];

export interface SuClientTable {
  seq: Generated<bigint>;
  id: string;
  account_id: string;
  email: string;
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

export interface SuPlanTable {
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

declare module '../../platform/db/types.ts' {
  interface Database {
    su_clients: SuClientTable;
    su_plans: SuPlanTable;
  }
}
