// Decision 810: a command run through the embedded server's operator socket is never reported failed by a CLI that
// stopped waiting while it ran. The server writes a keepalive line while the command runs, so the CLI's wait for a
// word (limits.opsCommandTimeoutMs, 2 min) is reached only by a server that went silent; and then the CLI says the
// command may still be running, not `unexpected error: ops socket timed out`. Small waits here stand in for the
// 2 minutes, passed as the server and the client take them.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, type Command } from '../../src/cli/command.ts';
import { opsSocketPath, runThroughServer, startOpsServer } from '../../src/cli/ops-socket.ts';
import { limits } from '../../src/limits/index.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

const clientWaitMs = 200;
const commandMs = 4 * clientWaitMs;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

/** A command that prints nothing for `commandMs`, like a `cobro backup` of a large database, then says done. */
function slowCommand(finished: string[]): Command {
  return {
    name: 'slow',
    summary: 'Takes a while without a word',
    usage: 'cobro slow',
    options: {},
    needsDb: false,
    run: async () => {
      await sleep(commandMs);
      finished.push('slow');
      return ok('written\n');
    },
  };
}

describe('a long command through the operator socket', () => {
  it('is waited for to its end: the server sends keepalives while it runs', async () => {
    const finished: string[] = [];
    const server = await startOpsServer(t.ctx, {
      keepaliveMs: clientWaitMs / 4,
      commands: [slowCommand(finished)],
    });
    try {
      const printed: string[] = [];
      const output = await runThroughServer(
        opsSocketPath(t.ctx.config.dataDir),
        ['slow'],
        (text) => {
          printed.push(text);
        },
        clientWaitMs,
      );
      expect(output).toEqual({ exitCode: 0, stdout: 'written\n', stderr: '' });
      // Keepalives are not output.
      expect(printed).toEqual([]);
      expect(finished).toEqual(['slow']);
    } finally {
      await server.close();
    }
  });

  it('when the server goes silent, says the command may still be running instead of an unexpected error', async () => {
    const finished: string[] = [];
    // A server whose keepalive comes later than the client's wait: silent as a hung one, for the client. Its
    // keepalive then goes to a connection the client has closed, which must not trouble the server.
    const server = await startOpsServer(t.ctx, {
      keepaliveMs: 2 * clientWaitMs,
      commands: [slowCommand(finished)],
    });
    try {
      const output = await runThroughServer(
        opsSocketPath(t.ctx.config.dataDir),
        ['slow'],
        undefined,
        clientWaitMs,
      );
      expect(output.exitCode).toBe(1);
      expect(output.stderr).toContain(`sent nothing for ${clientWaitMs} ms`);
      expect(output.stderr).toContain('`cobro slow` may still be running there');
      // And it was: the command ends on the server after the client stopped waiting.
      await sleep(commandMs);
      expect(finished).toEqual(['slow']);
    } finally {
      await server.close();
    }
  });

  it('keeps the keepalive well inside the wait of the real CLI', () => {
    expect(3 * limits.opsKeepaliveMs).toBeLessThanOrEqual(limits.opsCommandTimeoutMs);
  });
});
