// How `cobro serve` and `cobro worker` stop on SIGINT or SIGTERM: `close` finishes the work in flight, bounded by
// limits.shutdownGraceMs, after which the process exits 1 whatever is still open; a close that fails is logged in
// one line and exits 1, never an unhandled rejection's stack (decision 810: the worker had neither).
import type { Logger } from 'pino';
import { limits } from '../../limits/index.ts';

export function stopOnSignals(
  logger: Logger,
  close: () => Promise<void>,
  graceMs: number = limits.shutdownGraceMs,
): void {
  const stop = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    // Ref'd: a close waiting on nothing the event loop holds still ends here, with exit 1, not in a silent exit 0.
    setTimeout(() => {
      logger.error({ graceMs }, 'shutdown did not finish within its grace; exiting');
      process.exit(1);
    }, graceMs);
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}
