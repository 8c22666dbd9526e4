// Table types of escrow (migration 0230), merged into the shared Database interface.
import type { Int8, Timestamp } from '../../platform/db/types.ts';

interface EscrowHoldTable {
  /** The held sale (one hold per sale). */
  transaction_id: string;
  account_id: string;
  currency: string;
  /** What entered escrow_held when the sale settled: the merchant's part of its net. */
  settled_minor: Int8;
  /** What is still held: settled_minor less what refunds took from it; 0 once released. */
  held_minor: Int8;
  /** What POST /api/escrow moved to the wallet; null until released. */
  released_minor: Int8 | null;
  held_at: Timestamp;
  released_at: Timestamp | null;
}

declare module '../../platform/db/types.ts' {
  interface Database {
    escrow_holds: EscrowHoldTable;
  }
}
