// The `cobro` command line: serve, worker, and the operator commands of ./registry.ts.
// Only light modules are imported up front: help, completions and `cobro sign` never load Fastify, PGlite, Kysely
// or the services; the database and the server are imported when a command needs them.
import { loadConfig, type Config } from '../platform/process/config.ts';
import {
  opsServerAnswers,
  opsSocketPath,
  runThroughServer,
  withAbsoluteFile,
  withAbsolutePathOptions,
} from './ops-socket.ts';
import { embeddedOnlyText, fail, ownProcessText, type CommandOutput } from './command.ts';
import { StartupError, errorText } from '../platform/process/startup-error.ts';
import { hangIfAskedByTest, startReadyWatchdog } from '../platform/process/ready-watchdog.ts';

function configOrExit(): Config {
  const loaded = loadConfig();
  if (!loaded.ok) {
    process.stderr.write(loaded.errors.map((e) => `cobro: configuration error: ${e}\n`).join(''));
    process.exit(2);
  }
  return loaded.config;
}

/** A command's stdout text as it comes (`disputes import`: each line as it commits). */
function printNow(text: string): void {
  process.stdout.write(text);
}

/**
 * Exits once stdout and stderr have taken all that was written: a command that printed as it went (`disputes
 * import`, decision 710) may leave a queue for a slow pipe, which process.exit alone would drop.
 */
async function exitFlushed(code: number): Promise<never> {
  await Promise.all(
    [process.stdout, process.stderr].map(
      (stream) => new Promise<void>((resolve) => stream.write('', () => resolve())),
    ),
  );
  process.exit(code);
}

function emit(output: CommandOutput): Promise<never> {
  process.stdout.write(output.stdout);
  process.stderr.write(output.stderr);
  return exitFlushed(output.exitCode);
}

async function runCommand(argv: readonly string[]): Promise<never> {
  // Not imported by `cobro serve`: commander and the command registry load when an operator command runs.
  const { resolve, runResolved } = await import('./dispatch.ts');
  const resolved = resolve(argv);
  if (!('command' in resolved)) return emit(resolved);
  if (!resolved.command.needsDb) return emit(await runResolved(resolved, null));
  const config = configOrExit();
  if (resolved.command.embeddedOnly === true && config.databaseUrl !== null)
    return emit(fail(embeddedOnlyText(resolved.command.name)));
  if (config.databaseUrl === null) {
    const socketPath = opsSocketPath(config.dataDir);
    if (await opsServerAnswers(socketPath)) {
      if (resolved.command.ownProcess === true)
        return emit(fail(ownProcessText(resolved.command.name)));
      return emit(
        await runThroughServer(
          socketPath,
          withAbsolutePathOptions(
            withAbsoluteFile(argv, resolved.command, resolved.args.positionals[0]),
            resolved.command,
          ),
          printNow,
        ),
      );
    }
  }
  if (resolved.command.embeddedOnly === true) {
    // Without a server to ask, the command opens DATA_DIR itself, which must hold a database already.
    const { embeddedDatabaseExists } = await import('../platform/db/database.ts');
    if (!embeddedDatabaseExists(config.dataDir))
      return emit(fail(`no Cobro database in ${config.dataDir} (DATA_DIR)`));
  }
  const [{ openRuntime }, { createLogger }] = await Promise.all([
    import('../runtime.ts'),
    import('../platform/process/logger.ts'),
  ]);
  // Operator commands log only warnings, so their output stays readable, and on stderr, so stdout is the answer.
  const runtime = await openRuntime(config, {
    logger: createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, 'json', 2),
    // `migrate` reports what it applies, so it must find the pending migrations still pending.
    // and a backup copies the database as it is.
    migrate: resolved.command.name !== 'migrate' && resolved.command.embeddedOnly !== true,
    // Commands that only read never migrate or write (and refuse a database whose schema is behind).
    readOnly: resolved.command.readOnly === true,
    // A migration opens no secret: it runs without the key check (decision 815), which every other command keeps.
    keyless: resolved.command.name === 'migrate',
  });
  try {
    const output = await runResolved(resolved, runtime.ctx, printNow, 'debug');
    await runtime.close();
    return emit(output);
  } catch (error) {
    await runtime.close();
    throw error;
  }
}

/**
 * `cobro serve` and `cobro worker` take their settings from the environment only: anything after the command is a
 * usage error (exit 2), as for every other command, where it used to be ignored (`serve --port 9000` served on PORT;
 * decision 795). Checked here, without commander, which a serve does not load.
 */
function noArgumentsOrExit(argv: readonly string[]): void {
  const [command, ...rest] = argv;
  if (rest.length === 0) return;
  const option = rest.find((a) => a.startsWith('-'));
  const error =
    option !== undefined
      ? `unknown option '${option.split('=')[0]}'`
      : `too many arguments for '${command}'. Expected 0 arguments but got ${rest.length}.`;
  process.stderr.write(
    `error: ${error}\ncobro ${command} takes its settings from the environment (PORT, DATABASE_URL, ...: README "Configuration")\n(run \`cobro ${command} --help\` for usage)\n`,
  );
  process.exit(2);
}

async function main(argv: readonly string[]): Promise<void> {
  const [first] = argv;
  const wantsHelp = argv.includes('--help') || argv.includes('-h');
  if ((first === 'serve' || first === 'worker') && !wantsHelp) noArgumentsOrExit(argv);
  if (first === 'serve' && !wantsHelp) {
    const config = configOrExit();
    // Armed before anything heavy loads: a start that hangs ends with "not ready after N s" (decision 410).
    const watchdog = startReadyWatchdog(config.readyTimeoutMs);
    hangIfAskedByTest();
    const { closeOnSignals, startServer } = await import('../server.ts');
    const server = await startServer(config, { readyWatchdog: watchdog });
    watchdog.ready();
    closeOnSignals(server);
    return;
  }
  if (first === 'worker' && !wantsHelp) {
    const config = configOrExit();
    if (config.databaseUrl === null) {
      process.stderr.write(
        'cobro worker needs DATABASE_URL: with the embedded database, `cobro serve` runs the workers itself\n',
      );
      process.exit(2);
    }
    const watchdog = startReadyWatchdog(config.readyTimeoutMs);
    const [{ openRuntime }, { startWorkers }, { stopOnSignals }] = await Promise.all([
      import('../runtime.ts'),
      import('../workers/index.ts'),
      import('../platform/process/stop-on-signals.ts'),
    ]);
    const runtime = await openRuntime(config, { readyWatchdog: watchdog });
    const workers = startWorkers(runtime.ctx);
    watchdog.ready();
    // Bounded by limits.shutdownGraceMs and caught, as a serve's stop (decision 810).
    stopOnSignals(runtime.ctx.logger, async () => {
      await workers.stop();
      await runtime.close();
    });
    return;
  }
  await runCommand(argv);
}

// A start-up error the operator can act on is its one line; anything else is a bug, whose stack LOG_LEVEL=debug shows.
main(process.argv.slice(2)).catch((error: unknown) => {
  const debug = process.env.LOG_LEVEL === 'debug' || process.env.LOG_LEVEL === 'trace';
  const line =
    error instanceof StartupError
      ? error.message
      : `unexpected error: ${errorText(error)}${debug ? '' : ' (LOG_LEVEL=debug shows the stack)'}`;
  process.stderr.write(`cobro: ${line}\n`);
  if (
    debug &&
    !(error instanceof StartupError) &&
    error instanceof Error &&
    error.stack !== undefined
  )
    process.stderr.write(`${error.stack}\n`);
  void exitFlushed(1);
});
