// A consumer's TypeScript, compiled alone under strict settings: the type errors it has in its own file. For tests of
// what the published client's types let a caller write (test/contract/client-*-types.test.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';

export function typeErrors(source: string): string[] {
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
