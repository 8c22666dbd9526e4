// Runs the real `cobro` command line in a child process (bin/cobro, which execs the pinned Node 24), as an operator would.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The launcher an operator puts on PATH: a shell script that execs node_modules/node on bin/cobro.js. */
export const cobroBin = path.join(repoRoot, 'bin', 'cobro');

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The environment a child gets: ours minus DATABASE_URL (tests choose the engine explicitly), plus `env`. */
export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn' };
  delete base.DATABASE_URL;
  return { ...base, ...env };
}

export function runCli(
  args: readonly string[],
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cobroBin, [...args], {
      cwd: repoRoot,
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`cobro ${args.join(' ')} timed out`));
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface ServeProcess {
  readonly child: ChildProcess;
  readonly output: () => string;
  stop(): Promise<void>;
}

/** Starts `cobro serve` and resolves once it logs that it serves. */
export function startServe(env: Record<string, string>, timeoutMs = 60_000): Promise<ServeProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(cobroBin, ['serve'], {
      cwd: repoRoot,
      env: childEnv({ LOG_LEVEL: 'info', ...env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const stop = () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once('close', () => done());
        child.kill('SIGTERM');
      });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not start:\n${out}`));
    }, timeoutMs);
    const onData = (c: Buffer) => {
      out += c.toString();
      if (out.includes('cobro is serving')) {
        clearTimeout(timer);
        resolve({ child, output: () => out, stop });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (!out.includes('cobro is serving')) reject(new Error(`serve exited ${code}:\n${out}`));
    });
  });
}
