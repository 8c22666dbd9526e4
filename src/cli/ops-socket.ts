// PGlite is one process's database. While `cobro serve` holds it, CLI commands travel to the server over a Unix
// socket in DATA_DIR (mode 0600: only the operator's user can use it) and run there. See docs/decisions/001.
// The answer is JSON lines: `{"stdout":...}` for each piece a command prints before it ends (`disputes import`, each
// line as it commits, decision 710), then the command's output, the line with `exitCode`.
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

export async function startOpsServer(ctx: AppContext): Promise<OpsServer> {
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
                : await (await import('./dispatch.ts')).dispatch(argv, ctx, progress);
        } catch {
          output = { exitCode: 2, stdout: '', stderr: 'bad ops request\n' };
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

/** One line of the answer: printed when it is progress, kept when it is the output. */
function answerLine(line: string, progress: Progress): CommandOutput | null {
  if (line.trim() === '') return null;
  const parsed = JSON.parse(line) as Partial<CommandOutput>;
  if (typeof parsed.exitCode === 'number') return parsed as CommandOutput;
  if (typeof parsed.stdout === 'string') progress(parsed.stdout);
  return null;
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
    req.on('timeout', () => req.destroy(new Error('ops socket timed out')));
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

/** Runs argv in the serving process; what it prints before it ends goes to `progress`, or else leads stdout. */
export async function runThroughServer(
  socketPath: string,
  argv: readonly string[],
  progress?: Progress,
): Promise<CommandOutput> {
  let early = '';
  const output = await request(
    socketPath,
    '/run',
    argv,
    limits.opsCommandTimeoutMs,
    progress ??
      ((text) => {
        early += text;
      }),
  );
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
