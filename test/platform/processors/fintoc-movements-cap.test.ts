// The Fintoc reconciliation reads at most fintocLimits.movementsPerRunMax movements (decision 645 noted it read every
// page first and cut the list after): listMovements stops asking for pages once it holds `max`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fintocApi } from '../../../src/platform/processors/fintoc-client.ts';
import { startFintocSimulator, type FintocSimulator } from '../../support/fintoc-simulator.ts';

let sim: FintocSimulator;
beforeAll(async () => {
  sim = await startFintocSimulator();
});
afterAll(async () => {
  await sim?.close();
});

describe("Fintoc's movements list", () => {
  it('asks for no page past the one that reaches the cap', async () => {
    for (let i = 0; i < 12; i++)
      sim.extraMovements.push({ id: `mov_x${i}`, amount: 100 + i, currency: 'CLP' });
    sim.movementsPerPage = 5;
    const api = fintocApi({
      baseUrl: sim.url,
      secretKey: sim.secretKey,
      jwsPrivateKey: null,
      timeoutMs: 5_000,
    });
    const got = await api.listMovements('acc_sim1', {}, 7);
    expect(got.map((m) => m.id)).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `mov_x${i}`));
    expect(sim.calls.filter((c) => c.endsWith('/movements'))).toHaveLength(2);
    // Without a cap in reach, every page is read.
    expect(await api.listMovements('acc_sim1', {}, 100)).toHaveLength(12);
  });
});
