// packages/client/src/types.ts is generated from the server's route schemas (src/modules/api-types.ts): it must be
// exactly what the generator writes today, so a schema change without a regeneration fails here.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateTypes, typesTarget } from '../../packages/client/scripts/generate-types.ts';

describe('packages/client/src/types.ts', () => {
  it('is what generate-types.ts writes from the route schemas (run it after changing a schema)', () => {
    expect(fs.readFileSync(typesTarget, 'utf8')).toBe(generateTypes());
  }, 60_000);

  it('expands every type: no Static<>, typeof or import() left to reach the server', () => {
    const text = fs.readFileSync(typesTarget, 'utf8');
    expect(text).not.toMatch(/\bStatic\b|typeof |import\(|from '/);
    expect(text).toMatch(/export type CreatePayoutInput = \{\n {2}additional_parameters\?:/);
  });
});
