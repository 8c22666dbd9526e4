// Opens what a process needs (database, migrations, secrets, clock, logger) and closes it again.
import type { Logger } from 'pino';
import type { Config } from './platform/config.ts';
import type { Clock } from './platform/clock.ts';
import { systemClock } from './platform/clock.ts';
import type { AppContext } from './platform/context.ts';
import { openDatabase, type DatabaseHandle } from './platform/db/database.ts';
import { migrateToLatest } from './platform/db/migrate.ts';
import { createLogger } from './platform/logger.ts';
import { createSecretBox, resolveSecretKey } from './platform/secrets.ts';
import { contextServices } from './services.ts';

export interface Runtime {
  readonly ctx: AppContext;
  readonly handle: DatabaseHandle;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** An already-open database (tests pass a snapshot clone). */
  readonly handle?: DatabaseHandle;
  readonly migrate?: boolean;
}

export async function openRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const handle = options.handle ?? (config.databaseUrl !== null
    ? await openDatabase({ engine: 'postgres', url: config.databaseUrl })
    : await openDatabase({ engine: 'pglite', dataDir: config.dataDir }));
  if (options.migrate !== false) {
    const { applied } = await migrateToLatest(handle.db);
    if (applied.length > 0) logger.info({ applied }, 'migrations applied');
  }
  const secrets = createSecretBox(resolveSecretKey(config.secretKey, config.dataDir));
  const ctx: AppContext = { db: handle.db, engine: handle.engine, config, clock: options.clock ?? systemClock, secrets, logger, ...contextServices(config) };
  return { ctx, handle, close: () => handle.close() };
}
