// `cobro serve`: opens the runtime, listens, runs the workers, and shuts down cleanly on SIGINT/SIGTERM.
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import type { Config } from './platform/process/config.ts';
import { openRuntime, type Runtime, type RuntimeOptions } from './runtime.ts';
import { ensureDemoAccount } from './modules/accounts/demo.ts';
import { startWorkers, type RunningWorker } from './workers/index.ts';
import { startOpsServer, type OpsServer } from './cli/ops-socket.ts';
import { limits } from './limits/index.ts';
import { secureDataDir, warnLoosePaths } from './platform/process/fs-permissions.ts';
import { checkPortFree, listenErrorText } from './platform/http/port-check.ts';
import { StartupError } from './platform/process/startup-error.ts';
import type { AppContext } from './platform/context.ts';
import type { AccountView } from './modules/accounts/service.ts';
import { nextSteps, warnIntegrationAccounts, warnProductionSetup } from './start-notes.ts';
import { integrationAccounts } from './platform/processors/transbank-environments.ts';
import { stopOnSignals } from './platform/process/stop-on-signals.ts';

export interface RunningServer {
  readonly app: FastifyInstance;
  readonly runtime: Runtime;
  readonly url: string;
  close(): Promise<void>;
}

export async function startServer(
  config: Config,
  options: RuntimeOptions = {},
): Promise<RunningServer> {
  // Before anything opens: a port in use fails here, with DATA_DIR untouched.
  await checkPortFree(config.host, config.port);
  // What an earlier start or an operator left open to other users is tightened and named.
  const loosePaths = secureDataDir(config.dataDir);
  const runtime = await openRuntime(config, {
    queryTimeoutMs: limits.dbServeQueryTimeoutMs,
    ...options,
  });
  const { ctx } = runtime;
  warnLoosePaths(ctx.logger, loosePaths);
  let app: FastifyInstance | null = null;
  let ops: OpsServer | null = null;
  let address: string;
  let demo: AccountView | null = null;
  let integration: Awaited<ReturnType<typeof integrationAccounts>> | null = null;
  try {
    app = await buildApp(ctx);
    address = await app.listen({ port: config.port, host: config.host }).catch((error: unknown) => {
      throw new StartupError(listenErrorText(config.host, config.port, error));
    });
    ops =
      runtime.handle.engine === 'pglite' && options.handle === undefined
        ? await startOpsServer(ctx)
        : null;
    // Only once the server is sure to start: a failed start leaves no demo account behind.
    demo = await announceDemoAccount(ctx);
    if (config.mode === 'production') integration = await integrationAccounts(ctx.db);
  } catch (error) {
    await ops?.close();
    await app?.close();
    await runtime.close();
    throw error;
  }
  const workers: RunningWorker | null = config.workersEnabled ? startWorkers(ctx) : null;
  ctx.logger.info(
    { address, mode: config.mode, engine: runtime.handle.engine, url: config.publicBaseUrl },
    `cobro is serving at ${config.publicBaseUrl}`,
  );
  warnProductionSetup(ctx.logger, config, runtime.handle.engine);
  if (integration !== null) warnIntegrationAccounts(ctx.logger, config, integration);
  // For a person at a terminal, and on the first start whatever the output: where to go next.
  if (demo !== null || process.stdout.isTTY === true) process.stdout.write(nextSteps(config, demo));
  let closing: Promise<void> | null = null;
  const running = app;
  const opened = ops;
  return {
    app: running,
    runtime,
    url: address,
    close: () => {
      closing ??= (async () => {
        await workers?.stop();
        await running.close();
        await opened?.close();
        await runtime.close();
      })();
      return closing;
    },
  };
}

async function announceDemoAccount(ctx: AppContext): Promise<AccountView | null> {
  const demo = await ensureDemoAccount(ctx);
  if (demo === null) return null;
  ctx.logger.info({ account: demo.id }, 'sandbox demo account created');
  // Printed once, on the first start, so `npm start` alone gives a usable API.
  process.stdout.write(
    `${[
      '',
      `Sandbox demo account created (shown once; \`cobro accounts show ${demo.id}\` shows it again):`,
      `  account id:     ${demo.id}`,
      `  public token:   ${demo.publicToken}`,
      `  private token:  ${demo.privateToken}`,
      `  webhook secret: ${demo.webhookSecret}`,
      '',
    ].join('\n')}\n`,
  );
  return demo;
}

export function closeOnSignals(server: RunningServer): void {
  stopOnSignals(server.runtime.ctx.logger, () => server.close());
}
