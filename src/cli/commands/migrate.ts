import { ok, requireCtx, type Command } from '../command.ts';

export const migrateCommand: Command = {
  name: 'migrate',
  audit: 'none',
  summary: 'Apply pending database migrations',
  usage: 'cobro migrate',
  options: {},
  examples: ['cobro migrate', 'DATABASE_URL=postgres://cobro@db/cobro cobro migrate'],
  needsDb: true,
  async run(ctx) {
    const { migrateToLatest } = await import('../../platform/db/migrate.ts');
    // Each migration's name as it begins and its time as it ends, on stderr at once: a long statement on the
    // embedded database is progress, not a hang (decision 1022). stdout keeps the one summary line.
    const { applied } = await migrateToLatest(requireCtx(ctx).db, (line) => {
      process.stderr.write(`${line}\n`);
    });
    return ok(applied.length === 0 ? 'database is up to date' : `applied: ${applied.join(', ')}`);
  },
};
