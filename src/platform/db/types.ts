// Table types for Kysely. Modules add their own tables by declaration merging:
//   declare module '../../platform/db/types.ts' { interface Database { payouts: PayoutTable } }
// so no two modules edit the same lines.
import type { ColumnType, Kysely, Transaction } from 'kysely';

/** BIGINT money or counter column: read as bigint, written as bigint or safe number. */
export type Int8 = ColumnType<bigint, bigint | number, bigint | number>;
export type Timestamp = ColumnType<Date, Date, Date>;
export type Json<T> = ColumnType<T, string, string>;

interface AccountTable {
  id: string;
  name: string;
  status: 'active' | 'disabled';
  public_token_hash: string;
  public_token_enc: string;
  private_token_enc: string;
  webhook_secret_enc: string;
  /** The webhook secret a rotation retired, still signing beside the new one until `_until` (decision 1000). */
  webhook_secret_previous_enc: ColumnType<string | null, string | null | undefined, string | null>;
  webhook_secret_previous_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Every authenticated request must carry a valid Cobro-Signature (decision 140). */
  strict_signing: ColumnType<boolean, boolean | undefined, boolean>;
  /** Where account-level callbacks (destination changes) go; null sends none (decision 140). */
  notify_url: ColumnType<string | null, string | null | undefined, string | null>;
  /** Where nullification callbacks go (reference §3.3, decision 111); null sends none. */
  nullification_url: ColumnType<string | null, string | null | undefined, string | null>;
  /** Settled sales stay in escrow_held until POST /api/escrow releases them (decision 115). */
  escrow: ColumnType<boolean, boolean | undefined, boolean>;
  /** Whether the account's tokens open the dashboard (as its owner); off once it has users (decision 541). */
  dashboard_token_sign_in: ColumnType<boolean, boolean | undefined, boolean>;
}

interface BankTable {
  code: string;
  name: string;
  currency: string;
  sort_order: number;
}

export interface PaymentMethodTable {
  currency: string;
  payment: number;
  name: string;
  description: string;
  kind: 'card' | 'bank_transfer' | 'wallet_app' | 'cash' | 'qr' | 'mobile';
  sort_order: number;
}

interface MetaTable {
  key: string;
  value: string;
}

export interface Database {
  accounts: AccountTable;
  banks: BankTable;
  payment_methods: PaymentMethodTable;
  cobro_meta: MetaTable;
}

export type Db = Kysely<Database>;
/** A database handle that may or may not be inside a transaction; services take this. */
export type DbOrTx = Kysely<Database> | Transaction<Database>;
export type Tx = Transaction<Database>;
