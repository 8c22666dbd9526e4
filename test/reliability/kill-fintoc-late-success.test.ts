// A late Fintoc success killed between its claim and its record (decision 1080): the kill of fintoc-late-kill.ts,
// then the server restarted and the event delivered again, as Fintoc does when it got no answer. The restart finishes
// the work: the sale paid once, no "refund it by hand", reconcile matching the movement, the ledger clean. Before,
// the redelivery met the sale held by the killed attempt and logged the money for the operator to give back, leaving
// the sale unpaid. PostgreSQL only (the harness's hold on a table is another connection's).
import { describe, expect, it } from 'vitest';
import { startServe } from '../support/cli.ts';
import { startFintocSimulator } from '../support/fintoc-simulator.ts';
import { suiteEngine } from './engines.ts';
import { killedLateClaim } from './fintoc-late-kill.ts';

describe.skipIf(process.env.DATABASE_URL === undefined)(
  'kill -9 between a late Fintoc success claim and its record',
  () => {
    it('the restarted server pays the sale from the event delivered again', {
      timeout: 120_000,
    }, async () => {
      const engine = await suiteEngine();
      const sim = await startFintocSimulator();
      try {
        await killedLateClaim(
          engine,
          sim,
          { account: 'Tienda Corte', order: 'corte-1' },
          async (killed) => {
            const server = await startServe(killed.env);
            const again = await killed.redeliver();
            expect(again.status, again.text).toBe(200);
            expect(JSON.parse(again.text).result).toBe('approved');
            return server;
          },
        );
      } finally {
        await sim.close();
        await engine.dispose();
      }
    });
  },
);
