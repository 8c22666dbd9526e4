// A browser without JavaScript on the merchant dashboard, through app.inject: it keeps cookies, reads the CSRF
// token from the page's forms and posts forms back as a browser would.
import type { LightMyRequestResponse } from 'fastify';
import type { TestAccount, TestApp } from './app.ts';

export interface DashboardBrowser {
  readonly cookies: Map<string, string>;
  get(url: string): Promise<LightMyRequestResponse>;
  /**
   * Posts a form; `_csrf` is taken from the last page seen unless the fields give one. `headers` adds what a
   * browser would send besides (an `Origin`, a `Sec-Fetch-Site`).
   */
  post(
    url: string,
    fields: Record<string, string>,
    headers?: Record<string, string>,
  ): Promise<LightMyRequestResponse>;
  signIn(account: TestAccount): Promise<LightMyRequestResponse>;
}

function csrfOf(body: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(body);
  if (match?.[1] === undefined) throw new Error('page has no CSRF token');
  return match[1];
}

/** `remoteAddress`: the client's address (the sign-in forms count per address, across the database's processes). */
export function dashboardBrowser(t: TestApp, remoteAddress?: string): DashboardBrowser {
  const cookies = new Map<string, string>();
  let lastBody = '';
  const remember = (res: LightMyRequestResponse) => {
    for (const c of res.cookies as Array<{
      name: string;
      value: string;
      maxAge?: number;
      expires?: Date;
    }>) {
      if (c.value === '' || c.maxAge === 0) cookies.delete(c.name);
      else cookies.set(c.name, c.value);
    }
    if (String(res.headers['content-type'] ?? '').startsWith('text/html')) lastBody = res.body;
    return res;
  };
  const cookieHeader = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const browser: DashboardBrowser = {
    cookies,
    async get(url) {
      return remember(
        await t.app.inject({
          method: 'GET',
          url,
          ...(remoteAddress !== undefined ? { remoteAddress } : {}),
          headers: { cookie: cookieHeader(), accept: 'text/html' },
        }),
      );
    },
    async post(url, fields, headers = {}) {
      const form = new URLSearchParams({ _csrf: fields._csrf ?? csrfOf(lastBody), ...fields });
      return remember(
        await t.app.inject({
          method: 'POST',
          url,
          ...(remoteAddress !== undefined ? { remoteAddress } : {}),
          payload: form.toString(),
          headers: {
            cookie: cookieHeader(),
            'content-type': 'application/x-www-form-urlencoded',
            accept: 'text/html',
            ...headers,
          },
        }),
      );
    },
    async signIn(account) {
      await browser.get('/dashboard/login');
      return browser.post('/dashboard/login', {
        public_token: account.publicToken,
        private_token: account.privateToken,
      });
    },
  };
  return browser;
}
