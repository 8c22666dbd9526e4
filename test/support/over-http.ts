// A request to the app listening on a loopback port, over real HTTP (`t.app.listen`), as an account of it.
import { computeSign } from '../../src/platform/auth/sign.ts';
import type { TestAccount } from './app.ts';

/**
 * Requests to the app at `base()` (read at each request: the port is known once the app listens). One request as
 * `account`, signed when `options.sign`: its status, text and parsed JSON.
 */
export const httpTo =
  (base: () => string) =>
  async (
    account: TestAccount,
    method: string,
    path: string,
    body?: unknown,
    options: { sign?: boolean; headers?: Record<string, string> } = {},
  ) => {
    const res = await fetch(`${base()}${path}`, {
      method,
      headers: {
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        accept: 'application/json',
        authorization: `Bearer ${account.publicToken}`,
        ...(options.sign === true
          ? {
              sign: computeSign(
                account.privateToken,
                path,
                (body ?? {}) as Record<string, unknown>,
              ),
            }
          : {}),
        ...options.headers,
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, text, json: JSON.parse(text) as Record<string, any> };
  };
