// The database going away is an outage, not a fault of the request (decision 420): a refused or dropped
// connection, a server shutting down or starting, a pool that cannot connect, or an embedded data directory whose
// disk refuses a write. Such an error is answered 503 with Retry-After by the one error handler (and the pages'),
// /readyz says so, and the workers back off; nothing here retries a statement, since only the caller knows whether
// its effect may have committed (a retry carries its Idempotency-Key or its order).
import { limits } from '../../limits/index.ts';
import { ApiError } from '../errors/errors.ts';
import { queryReadTimeout } from './query-timeout.ts';
import { standbyRefused } from './primary-host.ts';

/** Node's socket errors for a server that is not there, or went away mid-conversation. */
const socketCodes: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  // A disk that refuses a write (the embedded engine's files): full, read-only, or failing.
  'ENOSPC',
  'EROFS',
  'EIO',
  'EDQUOT',
]);

/**
 * PostgreSQL's SQLSTATEs for the same: 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now,
 * 53100 disk_full, 53300 too_many_connections, 58030 io_error; and class 08, connection exceptions. 25006
 * read_only_sql_transaction too: Cobro never opens a read-only transaction where it serves, so a write refused that
 * way was sent to a standby (a demoted primary in a switchover, decision 840), which only a failover mends.
 */
const sqlStates: ReadonlySet<string> = new Set([
  '25006',
  '57P01',
  '57P02',
  '57P03',
  '53100',
  '53300',
  '58030',
]);

/** The drivers' own words when a connection ends under them (pg, pg-pool, PGlite). */
const messagePatterns: readonly RegExp[] = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^Connection timeout/,
  /is not queryable$/,
  // Cobro's own refusal of a host in recovery where a read-write one was asked for (primary-host.ts, decision 840).
  standbyRefused,
  // A statement a host gone silent never answered (decision 685).
  queryReadTimeout,
  /^PGlite (instance )?is (already )?closed/,
  /No space left on device/,
  /Read-only file system/,
];

function isUnavailable(error: unknown, depth: number): boolean {
  if (depth > limits.dbErrorNestingMax || typeof error !== 'object' || error === null) return false;
  const { code, message, cause, errors } = error as {
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (
    typeof code === 'string' &&
    (socketCodes.has(code) || sqlStates.has(code) || /^08[0-9A-Z]{3}$/.test(code))
  )
    return true;
  if (typeof message === 'string' && messagePatterns.some((pattern) => pattern.test(message)))
    return true;
  if (Array.isArray(errors) && errors.some((e) => isUnavailable(e, depth + 1))) return true;
  return isUnavailable(cause, depth + 1);
}

/**
 * Whether `error` says the database does not answer (or cannot write), rather than that a statement is wrong; the
 * catalogue's `unavailable` (the disk-space guard's refusal) counts too.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return (error instanceof ApiError && error.code === 'unavailable') || isUnavailable(error, 0);
}
