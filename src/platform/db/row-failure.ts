// Which failures of a group statement (a group commit's, decisions 220 and 400) let each of its requests run again
// alone (decisions 430 and 630), so that only a request that fails again answers the failure: one row's own fault,
// the database not answering, or the group's transaction rolled back whole by PostgreSQL. Everything else is a fault
// of the whole group (an assertion, a bug, a statement the database cannot run) and fails every request of it, never
// quietly retried.
import { ApiError } from '../errors/errors.ts';
import { isDatabaseUnavailable } from './outage.ts';

/**
 * SQLSTATE classes and codes a row's own values can raise: data exceptions (22: a value too long, out of range),
 * integrity violations (23: an order or random key already taken, a foreign key gone, a CHECK), and a trigger's
 * RAISE EXCEPTION (P0001) refusing that row.
 */
const rowClasses = ['22', '23'] as const;
const rowCodes = ['P0001'] as const;

/**
 * A transaction PostgreSQL rolled back whole to break a deadlock (40P01) or a serialization conflict (40001): nothing
 * of the group was written, and each request alone takes fewer locks.
 */
const rolledBackCodes = ['40P01', '40001'] as const;

function sqlStateOf(error: unknown): string | null {
  const code = (error as { readonly code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : null;
}

/** Whether `error` is a business refusal or a failure one row of a group can cause (see above). */
export function isRowFailure(error: unknown): boolean {
  if (error instanceof ApiError) return true;
  const code = sqlStateOf(error);
  if (code === null) return false;
  return (
    (rowClasses as readonly string[]).includes(code.slice(0, 2)) ||
    (rowCodes as readonly string[]).includes(code)
  );
}

/**
 * Whether a failed group's requests may each run again alone: a row's failure (isRowFailure); the database not
 * answering (isDatabaseUnavailable, however the driver words it), when the group may have committed and a request
 * run again alone finds itself written (its id, its order, its claim) or answers the outage itself; or the group's
 * transaction rolled back whole. The group's runner logs the failure either way (settleGroup).
 */
export function mayRunAlone(error: unknown): boolean {
  if (isRowFailure(error) || isDatabaseUnavailable(error)) return true;
  const code = sqlStateOf(error);
  return code !== null && (rolledBackCodes as readonly string[]).includes(code);
}
