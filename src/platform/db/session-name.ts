// What this process's PostgreSQL connections are called (`application_name`, seen in pg_stat_activity): `cobro:`,
// the pid and the host. An operator sees which process holds a connection; `cobro secrets rekey` finds the other
// Cobro processes on its database by it (decision 935).
import os from 'node:os';
import { limits } from '../../limits/index.ts';

export const cobroSessionPrefix = 'cobro:';

export const sessionName = `${cobroSessionPrefix}${process.pid}@${os.hostname()}`.slice(
  0,
  limits.applicationNameBytesMax,
);
