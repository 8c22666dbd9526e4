// What every service needs, built once by the process and passed down (no module-level singletons).
import type { Logger } from 'pino';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { Db } from './db/types.ts';
import type { Engine } from './db/database.ts';
import type { Ledger } from './ledger/ledger.ts';
import type { PaymentProcessor } from './processors/processor.ts';
import type { SecretBox } from './secrets.ts';

export interface AppContext {
  readonly db: Db;
  readonly engine: Engine;
  readonly config: Config;
  readonly clock: Clock;
  readonly secrets: SecretBox;
  readonly logger: Logger;
  /** The only way money moves (src/platform/ledger/ledger.ts). */
  readonly ledger: Ledger;
  /** The deployment's payment processor (processorFor(mode)). */
  readonly processor: PaymentProcessor;
}
