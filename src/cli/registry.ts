// Every operator command. A new module adds its commands here.
// A command file imports its services inside run() (`await import(...)`), so help and `cobro sign` stay fast (see command.ts).
import type { Command } from './command.ts';
import { accountsCreate, accountsList, accountsRotate, accountsShow } from './commands/accounts.ts';
import { accountsSetBank } from './commands/accounts-bank.ts';
import { accountsSetEscrow } from './commands/accounts-escrow.ts';
import { accountsSetProcessor } from './commands/accounts-processor.ts';
import { accountsRequireStrictSigning } from './commands/accounts-signing.ts';
import { accountsSetNotifyUrl, accountsSetUrls } from './commands/accounts-urls.ts';
import { ledgerVerify } from './commands/ledger.ts';
import { keysCreate, keysList, keysRevoke, keysRotate } from './commands/keys.ts';
import {
  usersInvite,
  usersList,
  usersRemove,
  usersReset,
  usersTokenSignIn,
} from './commands/users.ts';
import { accountsSetFee } from './commands/accounts-fee.ts';
import { migrateCommand } from './commands/migrate.ts';
import { backupCommand, restoreCommand } from './commands/backup.ts';
import { payoutsResolve, payoutsReturn } from './commands/payouts.ts';
import { payoutsExport, payoutsImport } from './commands/payouts-batch.ts';
import { walletCredit } from './commands/wallet.ts';
import { signCommand } from './commands/sign.ts';
import { conciliationExport } from './commands/conciliation.ts';
import { fintocReconcile } from './commands/fintoc.ts';
import { refundsList, refundsSetBankDetails, refundsShow } from './commands/refunds.ts';
import { refundsResolve } from './commands/refunds-resolve.ts';
import { refundsRecordExternal } from './commands/refunds-record-external.ts';
import {
  notificationsList,
  notificationsRetry,
  notificationsShow,
} from './commands/notifications.ts';
import { notificationsPrune } from './commands/notifications-prune.ts';
import {
  subscriptionsCancel,
  subscriptionsList,
  subscriptionsShow,
} from './commands/subscriptions.ts';
import {
  subscriptionsRemovals,
  subscriptionsRetryRemoval,
} from './commands/subscriptions-removals.ts';
import { plansList, plansSetPricing, plansShow } from './commands/plans.ts';
import { disputesImport, disputesOpen, disputesResolve } from './commands/disputes.ts';
import { auditList, auditVerify } from './commands/audit.ts';
import { secretsRekey } from './commands/secrets.ts';

export const commands: readonly Command[] = [
  migrateCommand,
  accountsCreate,
  accountsList,
  accountsShow,
  accountsRotate,
  keysCreate,
  keysList,
  keysRevoke,
  keysRotate,
  usersInvite,
  usersReset,
  usersRemove,
  usersList,
  usersTokenSignIn,
  accountsSetFee,
  signCommand,
  notificationsList,
  notificationsShow,
  notificationsRetry,
  notificationsPrune,
  ledgerVerify,
  walletCredit,
  accountsSetBank,
  accountsSetProcessor,
  payoutsResolve,
  payoutsReturn,
  payoutsExport,
  payoutsImport,
  accountsRequireStrictSigning,
  accountsSetNotifyUrl,
  accountsSetUrls,
  accountsSetEscrow,
  conciliationExport,
  fintocReconcile,
  refundsList,
  refundsShow,
  refundsSetBankDetails,
  refundsResolve,
  refundsRecordExternal,
  subscriptionsList,
  subscriptionsShow,
  subscriptionsCancel,
  subscriptionsRemovals,
  subscriptionsRetryRemoval,
  plansList,
  disputesOpen,
  disputesResolve,
  disputesImport,
  auditList,
  auditVerify,
  plansShow,
  plansSetPricing,
  backupCommand,
  restoreCommand,
  secretsRekey,
];
