// PGlite is one process's database. While `cobro serve` holds it, CLI commands travel to the server over a Unix
// socket in DATA_DIR (mode 0600: only the operator's user can use it) and run there. See docs/decisions/001.
// The answer is JSON lines: `{"stdout":...}` for each piece a command prints before it ends (`disputes import`, each
// line as it commits, decision 710), then the command's output, the line with `exitCode`. While the command runs,
// an empty line `{}` every limits.opsKeepaliveMs tells the CLI the server is still at it (decision 810): the CLI
// gives up only after limits.opsCommandTimeoutMs without a byte, and then says the command may still be running.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AppContext } from '../platform/context.ts';
import { limits } from '../limits/index.ts';
import type { Command, CommandOutput, Progress } from './command.ts';
import { restrictUmask } from '../platform/process/fs-permissions.ts';

export function opsSocketPath(dataDir: string): string {
  return path.join(dataDir, 'cobro.sock');
}

export interface OpsServer {
  close(): Promise<void>;
}

export interface OpsServerOptions {
  /** How often a running command's answer gets a keepalive line; limits.opsKeepaliveMs unless a test says. */
  readonly keepaliveMs?: number;
  /** The commands to run (tests); by default allCommands(). */
  readonly commands?: readonly Command[];
}

export async function startOpsServer(
  ctx: AppContext,
  options: OpsServerOptions = {},
): Promise<OpsServer> {
  const keepaliveMs = options.keepaliveMs ?? limits.opsKeepaliveMs;
  const socketPath = opsSocketPath(ctx.config.dataDir);
  // A socket left by a crashed server would block listen; nothing answers on it, so it is safe to remove.
  if (fs.existsSync(socketPath) && !(await opsServerAnswers(socketPath)))
    fs.rmSync(socketPath, { force: true });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limits.opsRequestBytesMax) req.destroy();
      else chunks.push(c);
    });
    req.on('end', () => {
      void (async () => {
        res.writeHead(200, { 'content-type': 'application/x-ndjson' });
        const progress: Progress = async (text) => {
          res.write(`${JSON.stringify({ stdout: text })}\n`);
          // Sent on a turn of the event loop: an import on the embedded database runs from promise to promise, and
          // without this turn its lines would all leave at the end (decision 710).
          await new Promise((resolve) => setImmediate(resolve));
        };
        let output: CommandOutput;
        const keepalive = setInterval(() => res.write('{}\n'), keepaliveMs);
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { argv?: unknown };
          const argv =
            Array.isArray(body.argv) && body.argv.every((a) => typeof a === 'string')
              ? (body.argv as string[])
              : null;
          output =
            argv === null
              ? { exitCode: 2, stdout: '', stderr: 'bad ops request\n' }
              : req.url === '/ping'
                ? { exitCode: 0, stdout: 'pong\n', stderr: '' }
                : await (await import('./dispatch.ts')).dispatch(argv, ctx, progress, {
                    inServer: true,
                    ...(options.commands !== undefined ? { commands: options.commands } : {}),
                  });
        } catch {
          output = { exitCode: 2, stdout: '', stderr: 'bad ops request\n' };
        } finally {
          clearInterval(keepalive);
        }
        res.end(`${JSON.stringify(output)}\n`);
      })();
    });
  });
  // Created with no group or other bits, so no other user can connect before the chmod below.
  restrictUmask();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  fs.chmodSync(socketPath, 0o600);
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        fs.rmSync(socketPath, { force: true });
      }),
  };
}

/** One line of the answer: printed when it is progress, kept when it is the output; a keepalive `{}` is neither. */
function answerLine(line: string, progress: Progress): CommandOutput | null {
  if (line.trim() === '') return null;
  const parsed = JSON.parse(line) as Partial<CommandOutput>;
  if (typeof parsed.exitCode === 'number') return parsed as CommandOutput;
  if (typeof parsed.stdout === 'string') progress(parsed.stdout);
  return null;
}

/** No byte from the serving process for the whole wait: it stopped answering, not necessarily working. */
class OpsTimeout extends Error {
  readonly waitedMs: number;
  constructor(waitedMs: number) {
    super('ops socket timed out');
    this.waitedMs = waitedMs;
  }
}

function request(
  socketPath: string,
  urlPath: string,
  argv: readonly string[],
  timeoutMs: number,
  progress: Progress,
): Promise<CommandOutput> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        socketPath,
        // A connection of its own: one kept by the global agent may be to a server since stopped (EPIPE).
        agent: false,
        path: urlPath,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        timeout: timeoutMs,
      },
      (res) => {
        let pending = '';
        let output: CommandOutput | null = null;
        const take = (lines: readonly string[]) => {
          for (const line of lines) output = answerLine(line, progress) ?? output;
        };
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          const lines = (pending + c).split('\n');
          pending = lines.pop() ?? '';
          try {
            take(lines);
          } catch (error) {
            res.destroy(error instanceof Error ? error : new Error(String(error)));
          }
        });
        res.on('error', reject);
        res.on('end', () => {
          try {
            take([pending]);
            if (output === null) throw new Error('the serving process gave no result');
            resolve(output);
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
      },
    );
    req.on('timeout', () => req.destroy(new OpsTimeout(timeoutMs)));
    req.on('error', reject);
    req.end(JSON.stringify({ argv }));
  });
}

export async function opsServerAnswers(socketPath: string): Promise<boolean> {
  if (!fs.existsSync(socketPath)) return false;
  try {
    const answer = await request(socketPath, '/ping', [], limits.opsPingTimeoutMs, () => {});
    return answer.exitCode === 0;
  } catch {
    return false;
  }
}

/** `120 s`, or `200 ms` under a second. */
function waitText(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

/**
 * Runs argv in the serving process; what it prints before it ends goes to `progress`, or else leads stdout. A
 * server silent for `timeoutMs` (no keepalive either) is answered with exit 1 and a line that says the command may
 * still be running there, since it may well be (decision 810).
 */
export async function runThroughServer(
  socketPath: string,
  argv: readonly string[],
  progress?: Progress,
  timeoutMs: number = limits.opsCommandTimeoutMs,
): Promise<CommandOutput> {
  let early = '';
  let output: CommandOutput;
  try {
    output = await request(
      socketPath,
      '/run',
      argv,
      timeoutMs,
      progress ??
        ((text) => {
          early += text;
        }),
    );
  } catch (error) {
    if (!(error instanceof OpsTimeout)) throw error;
    output = {
      exitCode: 1,
      stdout: '',
      stderr: `cobro: the serving process sent nothing for ${waitText(error.waitedMs)} and this command stopped waiting: \`cobro ${argv.join(' ')}\` may still be running there, or have finished; look at its effect (and the server's log) before running it again\n`,
    };
  }
  return early === '' ? output : { ...output, stdout: early + output.stdout };
}

/** argv with the file a command reads made absolute, resolved against this process's working directory. */
export function withAbsoluteFile(
  argv: readonly string[],
  command: Command,
  file: string | undefined,
): readonly string[] {
  if (command.readsFile !== true || file === undefined || path.isAbsolute(file)) return argv;
  const at = argv.indexOf(file, command.name.split(' ').length);
  return at < 0 ? argv : argv.map((a, i) => (i === at ? path.resolve(file) : a));
}

/** argv with the values of the command's path options made absolute (`--to FILE` and `--to=FILE`). */
export function withAbsolutePathOptions(argv: readonly string[], command: Command): string[] {
  const names = command.pathOptions ?? [];
  return argv.map((a, i) => {
    const flag = names.find((n) => a.startsWith(`--${n}=`));
    if (flag !== undefined) return `--${flag}=${path.resolve(a.slice(flag.length + 3))}`;
    const previous = argv[i - 1];
    return previous !== undefined && names.some((n) => previous === `--${n}`) ? path.resolve(a) : a;
  });
}
