// Decision 645: an operator's input file is refused past its bound, also a pipe or a device, which report no size
// before the read: the payouts results file, and the disputes file, which had no bound before.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../src/cli/dispatch.ts';
import { disputeLimits, limits } from '../../src/limits/index.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

let t: TestApp;
let dir: string;
beforeAll(async () => {
  t = await startTestApp({ env: { COBRO_MODE: 'production', COBRO_SECRET_KEY: 'cd'.repeat(32) } });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-import-'));
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('operator input files past their bound', () => {
  it('refuses a results stream larger than payoutResultsFileBytesMax', async () => {
    const fifo = path.join(dir, 'results.csv');
    const mkfifo = spawn('mkfifo', [fifo]);
    await new Promise((resolve) => mkfifo.on('exit', resolve));
    const bytes = limits.payoutResultsFileBytesMax * 2;
    // A writer streams a header and 8 MiB of one long reason into the pipe.
    const writer = spawn('sh', [
      '-c',
      `{ printf 'payout_id,status,reason\\nmor1,banking_error,'; head -c ${bytes} /dev/zero | tr '\\0' 'x'; printf '\\n'; } > '${fifo}'`,
    ]);
    const out = await dispatch(['payouts', 'import', fifo], t.ctx);
    await new Promise((resolve) => writer.on('exit', resolve));
    expect(out.stderr).toContain(`larger than ${limits.payoutResultsFileBytesMax} bytes`);
  });

  it('refuses a disputes file larger than importFileBytesMax', async () => {
    const file = path.join(dir, 'disputes.csv');
    fs.writeFileSync(file, Buffer.alloc(disputeLimits.importFileBytesMax + 1, 'x'));
    const out = await dispatch(['disputes', 'import', file], t.ctx);
    expect(out.exitCode).toBe(2);
    expect(out.stderr).toContain(`larger than ${disputeLimits.importFileBytesMax} bytes`);
  });
});
