// Which failures of a group statement (a group commit's, decisions 220 and 400) one row of it can cause, so that
// running each row again alone leaves the failure to its own request: everything else is a fault of the whole
// group (an assertion, a bug, the database refusing work) and fails every request of it, never quietly retried.
import { ApiError } from '../errors/errors.ts';

/**
 * SQLSTATE classes and codes a row's own values can raise: data exceptions (22: a value too long, out of range),
 * integrity violations (23: an order or random key already taken, a foreign key gone, a CHECK), and a trigger's
 * RAISE EXCEPTION (P0001) refusing that row. 08 is a connection that failed while the statement or its commit was
 * answered: the group may have committed, and a row run again alone finds itself written (its order, its id).
 */
const rowClasses = ['22', '23', '08'] as const;
const rowCodes = ['P0001'] as const;

/** Whether `error` is a business refusal or a failure one row of a group can cause (see above). */
export function isRowFailure(error: unknown): boolean {
  if (error instanceof ApiError) return true;
  const code = (error as { readonly code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return false;
  return (
    (rowClasses as readonly string[]).includes(code.slice(0, 2)) ||
    (rowCodes as readonly string[]).includes(code)
  );
}
