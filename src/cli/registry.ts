// Every operator command. A new module adds its commands here.
import type { Command } from './command.ts';
import { accountsCreate, accountsList, accountsRotate, accountsShow } from './commands/accounts.ts';
import { accountsSetFee } from './commands/accounts-fee.ts';
import { migrateCommand } from './commands/migrate.ts';
import { signCommand } from './commands/sign.ts';

export const commands: readonly Command[] = [
  migrateCommand,
  accountsCreate,
  accountsList,
  accountsShow,
  accountsRotate,
  accountsSetFee,
  signCommand,
];
