// `cobro backup` and `cobro restore`: the embedded database to one file and back (decision 520). On PostgreSQL both
// refuse and name PostgreSQL's own tools (docs/operations.md, "Backup and restore").
import { embeddedOnlyText, fail, ok, requireCtx, stringOption, type Command } from '../command.ts';

export const backupCommand: Command = {
  name: 'backup',
  summary: 'Copy the embedded database (and its secret key file) to one file, while it serves',
  usage: 'cobro backup --to FILE',
  options: {
    to: { type: 'string', valueName: 'FILE', description: 'the new file to write (mode 0600)' },
  },
  examples: ['cobro backup --to /backups/cobro-$(date +%F).cobro-backup'],
  needsDb: true,
  embeddedOnly: true,
  // It reads the database and writes a file; run in a transaction of the dispatcher's, the copy would wait for it.
  audit: 'none',
  pathOptions: ['to'],
  async run(ctx, args) {
    const file = stringOption(args, 'to');
    if (file === undefined || file === '') return fail('--to FILE is required', 2);
    const { takeBackup } = await import('../../platform/db/backup.ts');
    const path = await import('node:path');
    const outcome = await takeBackup(requireCtx(ctx), path.resolve(file));
    return outcome.ok ? ok(outcome.text) : fail(`backup failed: ${outcome.reason}`);
  },
};

export const restoreCommand: Command = {
  name: 'restore',
  summary: 'Restore a `cobro backup` file into an empty DATA_DIR',
  usage: 'cobro restore --from FILE',
  options: {
    from: { type: 'string', valueName: 'FILE', description: 'the backup file to read' },
  },
  examples: ['DATA_DIR=/var/lib/cobro cobro restore --from /backups/cobro-2026-11-27.cobro-backup'],
  // It runs in the CLI's own process: a serving process holds a DATA_DIR that is not empty.
  needsDb: false,
  async run(_ctx, args) {
    const file = stringOption(args, 'from');
    if (file === undefined || file === '') return fail('--from FILE is required', 2);
    const { loadConfig } = await import('../../platform/process/config.ts');
    const loaded = loadConfig();
    if (!loaded.ok)
      return fail(loaded.errors.map((e) => `configuration error: ${e}`).join('\n'), 2);
    if (loaded.config.databaseUrl !== null) return fail(embeddedOnlyText('restore'));
    const path = await import('node:path');
    const { restoreBackup } = await import('../../platform/db/backup.ts');
    const outcome = await restoreBackup(path.resolve(loaded.config.dataDir), path.resolve(file));
    return outcome.ok ? ok(outcome.text) : fail(`restore failed: ${outcome.reason}`);
  },
};
