// Loaded with `node --import` into a child cobro: records every module it resolves (parent and child URLs) and
// writes them to $RECORD_IMPORTS_OUT at exit, so a test can see what a command's start loads.
import fs from 'node:fs';
import { registerHooks } from 'node:module';

const edges: { parent: string; url: string }[] = [];
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    edges.push({ parent: context.parentURL ?? '', url: resolved.url });
    return resolved;
  },
});
process.on('exit', () => {
  const out = process.env.RECORD_IMPORTS_OUT;
  if (out !== undefined) fs.writeFileSync(out, JSON.stringify(edges));
});
