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
    const { applied } = await migrateToLatest(requireCtx(ctx).db);
    return ok(applied.length === 0 ? 'database is up to date' : `applied: ${applied.join(', ')}`);
  },
};
