// Decision 810: `cobro worker`'s stop on SIGTERM had no bound and no catch (a serve's exits 1 after
// limits.shutdownGraceMs): a close that hung kept the process up past any supervisor's patience, and a close that
// failed was an unhandled rejection's stack. Both now stop through stopOnSignals (src/platform/process/
// stop-on-signals.ts), run here in a process of its own with a small grace in place of the 20 s.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const graceMs = 300;

/** A process that stops through stopOnSignals with the given close, sent SIGTERM once it says it is up. */
async function stopWith(close: string): Promise<{ code: number | null; out: string; ms: number }> {
  const script = `
import pino from 'pino';
import { stopOnSignals } from './src/platform/process/stop-on-signals.ts';
stopOnSignals(pino(), ${close}, ${graceMs});
setInterval(() => {}, 1000);
process.stdout.write('up\\n');
`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: root });
  let out = '';
  let sentAt = 0;
  const onData = (c: Buffer) => {
    out += c.toString('utf8');
    if (sentAt === 0 && out.includes('up\n')) {
      sentAt = performance.now();
      child.kill('SIGTERM');
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  // A stop that never ends is this test's failure, not a process left behind.
  const guard = setTimeout(() => child.kill('SIGKILL'), 10 * graceMs);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearTimeout(guard);
  return { code, out, ms: performance.now() - sentAt };
}

describe('stopping on SIGTERM', () => {
  it('exits 0 once the close is done', async () => {
    const run = await stopWith('async () => {}');
    expect(run.code).toBe(0);
    expect(run.out).toContain('"msg":"shutting down"');
  });

  it('exits 1 with a log line, not an unhandled rejection, when the close fails', async () => {
    const run = await stopWith(`async () => { throw new Error('pool already closed'); }`);
    expect(run.code).toBe(1);
    expect(run.out).toContain('"msg":"shutdown failed"');
    expect(run.out).toContain('pool already closed');
    // Every line is the log's JSON: no stack printed by Node for an unhandled rejection.
    const lines = run.out.split('\n').filter((l) => l !== '' && l !== 'up');
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
  });

  it('exits 1 after the grace when the close never ends', async () => {
    const run = await stopWith('() => new Promise(() => {})');
    expect(run.code).toBe(1);
    expect(run.out).toContain('shutdown did not finish within its grace');
    expect(run.ms).toBeGreaterThanOrEqual(graceMs - 50);
  });
});
