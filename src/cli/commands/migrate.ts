import { migrateToLatest } from '../../platform/db/migrate.ts';
import { ok, requireCtx, type Command } from '../command.ts';

export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'Apply pending database migrations',
  usage: 'cobro migrate',
  options: {},
  needsDb: true,
  async run(ctx) {
    const { applied } = await migrateToLatest(requireCtx(ctx).db);
    return ok(applied.length === 0 ? 'database is up to date' : `applied: ${applied.join(', ')}`);
  },
};
