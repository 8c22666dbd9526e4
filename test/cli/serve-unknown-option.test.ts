// Decision 795: docs/operations.md says usage errors (an unknown command or option, a missing argument) exit 2 with
// the error. `cobro serve` and `cobro worker` skipped the parser: `cobro serve --port 9000` started on PORT (8080)
// as if nothing had been typed, and `cobro serve --production` or `--database-url ...` would serve a sandbox on the
// embedded database. Their settings come from the environment only; anything after the command is refused.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../support/cli.ts';

vi.setConfig({ testTimeout: 120_000 });

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-serve-args-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('cobro serve and cobro worker with arguments', () => {
  it('serve --port 9000: a usage error (exit 2) naming the option, before anything opens', async () => {
    const dataDir = path.join(root, 'serve');
    // Before the fix the server started and served until killed: the 30 s bound turns that into a failure.
    const out = await runCli(['serve', '--port', '9000'], { DATA_DIR: dataDir, PORT: '0' }, 30_000);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("unknown option '--port'");
    expect(out.stderr).toContain('cobro serve --help');
    expect(fs.existsSync(dataDir)).toBe(false);
  });

  it('serve with an operand, and worker with an unknown option: exit 2', async () => {
    const dataDir = path.join(root, 'operand');
    const serve = await runCli(['serve', 'now'], { DATA_DIR: dataDir, PORT: '0' }, 30_000);
    expect(serve.code).toBe(2);
    expect(serve.stderr).toContain("too many arguments for 'serve'");
    expect(fs.existsSync(dataDir)).toBe(false);
    const url = `postgres://cobro@127.0.0.1:${await closedPort()}/cobro`;
    const worker = await runCli(['worker', '--once'], { DATABASE_URL: url }, 30_000);
    expect(worker.code).toBe(2);
    expect(worker.stderr).toContain("unknown option '--once'");
  });
});
