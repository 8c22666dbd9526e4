// A late Fintoc success killed between its claim and its record, and never delivered again (decision 1215): the kill
// of fintoc-late-kill.ts, then Fintoc sends nothing more. The 10-minute lease of the dead attempt is moved into the
// past in the database (the service clock of a real server cannot be advanced), the server restarted, and its own
// `fintoc-late-claim-recover` due work, reading the payment intent from the simulator, pays the sale: once, no
// "refund it by hand", reconcile matching the movement, the ledger clean. Before, the sale stayed pending.
// PostgreSQL only (the harness's hold on a table is another connection's).
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { startServe } from '../support/cli.ts';
import { startFintocSimulator } from '../support/fintoc-simulator.ts';
import { transactionLimits } from '../../src/limits/index.ts';
import { suiteEngine } from './engines.ts';
import { killedLateClaim } from './fintoc-late-kill.ts';

/** How many times the test looks for the restarted server's due work to pay the sale (each 100 ms apart). */
const paidLooksMax = 600;

describe.skipIf(process.env.DATABASE_URL === undefined)(
  'kill -9 between a late Fintoc success claim and its record, no redelivery',
  () => {
    it('the due work of the restarted server pays the sale from the payment intent at Fintoc', {
      timeout: 120_000,
    }, async () => {
      const engine = await suiteEngine();
      const sim = await startFintocSimulator();
      try {
        await killedLateClaim(
          engine,
          sim,
          { account: 'Tienda Rescate', order: 'rescate-1' },
          async ({ env, data, sale, intentId }) => {
            // The dead attempt's lease runs out (moved back, as the service clock would move), and the restarted
            // server's due work finds the sale, reads the intent at Fintoc and pays it.
            const backMs = transactionLimits.acquirer.redirectLeaseMs + 1000;
            await sql`UPDATE transactions SET attempt_lease_until = attempt_lease_until - ${`${backMs} milliseconds`}::interval
              WHERE id = ${sale.id}`.execute(data.db);
            await sql`UPDATE processor_sessions SET updated_at = updated_at - ${`${backMs} milliseconds`}::interval
              WHERE transaction_id = ${sale.id}`.execute(data.db);
            // serveOn starts servers without workers; this one runs its due work, as a production `cobro serve` does.
            const server = await startServe({ ...env, COBRO_WORKERS: '1' });
            for (let look = 0; look < paidLooksMax; look++) {
              await new Promise((r) => setTimeout(r, 100));
              const row = await data.db
                .selectFrom('transactions')
                .select('status')
                .where('id', '=', sale.id)
                .executeTakeFirstOrThrow();
              if (row.status !== 'pending') break;
            }
            expect(sim.calls).toContain(`GET /v1/payment_intents/${intentId}`);
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
