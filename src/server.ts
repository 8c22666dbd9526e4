// `cobro serve`: opens the runtime, listens, runs the workers, and shuts down cleanly on SIGINT/SIGTERM.
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import type { Config } from './platform/config.ts';
import { openRuntime, type Runtime, type RuntimeOptions } from './runtime.ts';
import { ensureDemoAccount } from './modules/accounts/demo.ts';
import { startWorkers, type RunningWorker } from './workers/index.ts';
import { startOpsServer, type OpsServer } from './cli/ops-socket.ts';
import { limits } from './limits.ts';
import { secureDataDir, warnLoosePaths } from './platform/fs-permissions.ts';

export interface RunningServer {
  readonly app: FastifyInstance;
  readonly runtime: Runtime;
  readonly url: string;
  close(): Promise<void>;
}

export async function startServer(config: Config, options: RuntimeOptions = {}): Promise<RunningServer> {
  // Before anything opens: what an earlier start or an operator left open to other users is tightened and named.
  const loosePaths = secureDataDir(config.dataDir);
  const runtime = await openRuntime(config, options);
  const { ctx } = runtime;
  warnLoosePaths(ctx.logger, loosePaths);
  const demo = await ensureDemoAccount(ctx);
  if (demo !== null) {
    ctx.logger.info({ account: demo.id }, 'sandbox demo account created');
    // Printed once, on the first start, so `npm start` alone gives a usable API.
    process.stdout.write([
      '',
      'Sandbox demo account created (shown once; `cobro accounts show ' + demo.id + '` shows it again):',
      `  account id:     ${demo.id}`,
      `  public token:   ${demo.publicToken}`,
      `  private token:  ${demo.privateToken}`,
      `  webhook secret: ${demo.webhookSecret}`,
      '',
    ].join('\n') + '\n');
  }
  const app = await buildApp(ctx);
  const ops: OpsServer | null = runtime.handle.engine === 'pglite' && options.handle === undefined ? await startOpsServer(ctx) : null;
  const address = await app.listen({ port: config.port, host: config.host });
  const workers: RunningWorker | null = config.workersEnabled ? startWorkers(ctx) : null;
  ctx.logger.info({ address, mode: config.mode, engine: runtime.handle.engine }, 'cobro is serving');
  let closing: Promise<void> | null = null;
  return {
    app,
    runtime,
    url: address,
    close: () => {
      closing ??= (async () => {
        await workers?.stop();
        await app.close();
        await ops?.close();
        await runtime.close();
      })();
      return closing;
    },
  };
}

export function closeOnSignals(server: RunningServer): void {
  const shutdown = (signal: string) => {
    server.runtime.ctx.logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => process.exit(1), limits.shutdownGraceMs);
    timer.unref();
    server.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}
