// Decision 700: the published client's types accept what the server accepts. POST /api/suplan takes `type`
// (fixed, variable, consumption) and `interval` (day, week, month, year) (decision 100; docs/subscriptions.md).
// Before 700, packages/client/src/types.ts declared both `?: undefined` (the schema's union of literals was built
// with `.map()`, so Static<> lost its members) and a TypeScript caller could not send them. From review-contract.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

function typeErrors(source: string): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-consumer-'));
  const file = path.join(dir, 'consumer.ts');
  fs.writeFileSync(file, source);
  try {
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      allowImportingTsExtensions: true,
      skipLibCheck: true,
      types: [],
    });
    return ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file?.fileName === file)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

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
