// Decision 700: the published client's types accept what the server accepts. POST /api/suplan takes `type`
// (fixed, variable, consumption) and `interval` (day, week, month, year) (decision 100; docs/subscriptions.md).
// Before 700, packages/client/src/types.ts declared both `?: undefined` (the schema's union of literals was built
// with `.map()`, so Static<> lost its members) and a TypeScript caller could not send them. From review-contract.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { typeErrors } from '../support/type-errors.ts';

const root = path.resolve(import.meta.dirname, '../..');

describe('packages/client types for POST /api/suplan', () => {
  it('accept a fixed monthly plan, as the server and docs/subscriptions.md do', () => {
    const clientIndex = path.join(root, 'packages/client/src/index.ts');
    const errors = typeErrors(`
import { CobroClient } from ${JSON.stringify(clientIndex)};
declare const cobro: CobroClient;
export const a = cobro.createPlan({ name: 'Mensual', type: 'fixed', amount: 9990, interval: 'month' });
`);
    expect(errors).toEqual([]);
  }, 60_000);
});
