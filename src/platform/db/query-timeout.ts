// A statement PostgreSQL does not answer within `query_timeout` closes its connection (decision 685). A host that
// crashed or dropped off the network sends no reset, so a query sent to it neither fails nor answers; pg's
// query_timeout rejects the caller's promise but leaves the query active on the connection, which would then go back
// to the pool with every later query (the transaction's ROLLBACK first) queued behind it. Ending the client makes
// it unqueryable at once: its ROLLBACK fails fast, and the pool drops it on release instead of handing it out again.
import type pg from 'pg';

/** pg's own words for a query that outlived query_timeout. */
export const queryReadTimeout = /^Query read timeout/;

function isReadTimeout(error: unknown): boolean {
  return error instanceof Error && queryReadTimeout.test(error.message);
}

/** `base` with every promised query that times out ending its client (the pool's `Client` option). */
export function closingOnReadTimeout(base: typeof pg.Client): typeof pg.Client {
  return class ClosingOnReadTimeout extends base {
    // pg's query has a dozen overloads: this passes each through as it is.
    override query(...args: any[]): any {
      const result = (super.query as (...a: unknown[]) => unknown)(...args);
      if (result instanceof Promise)
        // Registered before the caller's own handler, so the client is ending by the time the caller reacts.
        result.catch((error: unknown) => {
          if (isReadTimeout(error)) this.end().catch(() => {});
        });
      return result;
    }
  };
}
