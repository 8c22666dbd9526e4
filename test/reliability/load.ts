// The load of the kill-and-retry test: many state-changing requests, each with its own Idempotency-Key and order,
// fired at a real `cobro serve` over HTTP and retried with the same key and body until each gets an answer.
import { computeSign, queryParams } from '../../src/platform/auth/sign.ts';
import type { Reply, Transport } from './simulation.ts';
import type { ServeProcess } from '../support/cli.ts';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The card expiry these tests pay with. A real `cobro serve` refuses a card whose month has passed on the real clock
 * (in the service zone), so a fixed near date such as 12/30 would fail every payment from January 2031 on.
 */
export const cardExpiry = '12/99';

/** Kills a server with SIGKILL (a power cut); settles when the process is gone. */
export function sigkill(server: ServeProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    server.child.once('close', () => resolve());
    server.child.kill('SIGKILL');
  });
}

/** Kills a server once (SIGKILL); every call returns the same promise, settled when the process is gone. */
export function killer(server: ServeProcess): () => Promise<void> {
  let killed: Promise<void> | null = null;
  return () => {
    killed ??= sigkill(server);
    return killed;
  };
}

/**
 * After a restart: sends every item again, all at once, round after round (at most `roundsMax`, `pauseMs` between
 * them), until `sendOne` says each got its answer (it keeps the answer itself). Answers the items never answered.
 */
export async function resendUntilAnswered<T>(
  items: readonly T[],
  roundsMax: number,
  pauseMs: number,
  sendOne: (item: T) => Promise<boolean>,
): Promise<T[]> {
  let pending = [...items];
  for (let round = 0; round < roundsMax && pending.length > 0; round++) {
    const answered = await Promise.all(pending.map(sendOne));
    pending = pending.filter((_, i) => !answered[i]);
    if (pending.length > 0 && pauseMs > 0) await sleep(pauseMs);
  }
  return pending;
}

/**
 * Sends every item in order with at most `inFlightMax` waiting for an answer, and kills the server in the very turn
 * the `killAtAnswered`-th answer arrives (or after `fallbackMs`): requests are then in flight, and those not yet sent
 * find no server. Polling a timer for the count instead let a fast server answer everything first, since a payout
 * group's answers arrive together. `sendOne` says whether its item got an answer.
 */
export async function sendThenKill<T>(
  items: readonly T[],
  inFlightMax: number,
  sendOne: (item: T) => Promise<boolean>,
  killAtAnswered: number,
  kill: () => Promise<void>,
  fallbackMs: number,
): Promise<void> {
  const fallback = setTimeout(() => void kill(), fallbackMs);
  let next = 0;
  let answered = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++]!;
      if (!(await sendOne(item))) continue;
      answered += 1;
      if (answered >= killAtAnswered) void kill();
    }
  };
  await Promise.all(Array.from({ length: inFlightMax }, lane));
  clearTimeout(fallback);
  await kill();
}

export interface Credentials {
  readonly accountId: string;
  readonly publicToken: string;
  readonly privateToken: string;
}

export interface PlannedRequest {
  readonly kind: 'transaction' | 'payout' | 'refund' | 'charge';
  readonly path: string;
  readonly key: string;
  readonly order: string;
  readonly amountMinor: number;
  readonly body: Record<string, unknown>;
}

export interface Answer {
  readonly status: number;
  readonly body: string;
  readonly replayed: boolean;
}

/** The demo account `cobro serve` prints on its first start on empty data. */
export function demoCredentials(output: string): Credentials {
  const field = (label: string) => {
    const value = new RegExp(`${label}:\\s+(\\S+)`).exec(output)?.[1];
    if (value === undefined) throw new Error(`serve printed no ${label}:\n${output}`);
    return value;
  };
  return {
    accountId: field('account id'),
    publicToken: field('public token'),
    privateToken: field('private token'),
  };
}

export function plan(run: string, transactions: number, payouts: number): PlannedRequest[] {
  const planned: PlannedRequest[] = [];
  for (let i = 0; i < transactions; i++) {
    const order = `${run}-t-${i}`;
    planned.push({
      kind: 'transaction',
      path: '/api/transaction',
      key: `key-${order}`,
      order,
      amountMinor: 1000 + i,
      body: { email: 'payer@example.com', order, subject: 'Kill and retry', amount: 1000 + i },
    });
  }
  for (let i = 0; i < payouts; i++) {
    const order = `${run}-p-${i}`;
    planned.push({
      kind: 'payout',
      path: '/api/wallet/payout',
      key: `key-${order}`,
      order,
      amountMinor: 100 + i,
      body: {
        email: 'johndoe@example.com',
        subject: 'Kill and retry payout',
        currency: 'CLP',
        order,
        amount: 100 + i,
        accountbank_name: 'Jhon Doe',
        accountbank_rut: '111111111',
        accountbank_sbif: '0001',
        accountbank_type: '1',
        accountbank_num: '12312312312',
      },
    });
  }
  // Interleave the kinds, so the kill finds each in flight.
  return planned.sort(
    (a, b) =>
      a.order.split('-').pop()!.localeCompare(b.order.split('-').pop()!) ||
      a.kind.localeCompare(b.kind),
  );
}

/** A partial refund of each paid sale, and charges on one subscription's enrolled card, keyed like the rest. */
export function planRefundsAndCharges(
  run: string,
  paidSales: readonly string[],
  subscription: string,
  charges: number,
): PlannedRequest[] {
  const planned: PlannedRequest[] = paidSales.map((id, i) => ({
    kind: 'refund',
    path: '/api/nullification',
    key: `key-${run}-r-${i}`,
    order: id,
    amountMinor: 100 + i,
    body: { id, amount: 100 + i, subject: 'Kill and retry refund' },
  }));
  for (let i = 0; i < charges; i++) {
    const order = `${run}-c-${i}`;
    planned.push({
      kind: 'charge',
      path: '/api/sutransaction',
      key: `key-${order}`,
      order,
      amountMinor: 500 + i,
      body: {
        suscription: subscription,
        amount: 500 + i,
        order,
        description: 'Kill and retry charge',
      },
    });
  }
  return planned;
}

/** One attempt; null when the connection broke (the server died) or the server was not there. */
export async function send(
  baseUrl: string,
  who: Credentials,
  request: PlannedRequest,
  key = request.key,
): Promise<Answer | null> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    authorization: `Bearer ${who.publicToken}`,
    'idempotency-key': key,
  };
  if (request.kind !== 'transaction')
    headers.sign = computeSign(who.privateToken, request.path, request.body);
  try {
    const res = await fetch(`${baseUrl}${request.path}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(request.body),
      signal: AbortSignal.timeout(20_000),
    });
    return {
      status: res.status,
      body: await res.text(),
      replayed: res.headers.get('idempotent-replayed') === 'true',
    };
  } catch {
    return null;
  }
}

/** Retries every request (same key, same body) until each has an answer that is not 409 or 5xx. */
export async function retryUntilAnswered(
  baseUrl: string,
  who: Credentials,
  requests: readonly PlannedRequest[],
  parallelMax: number,
  roundsMax: number,
): Promise<Map<string, Answer>> {
  const answers = new Map<string, Answer>();
  let pending = [...requests];
  for (let round = 0; round < roundsMax && pending.length > 0; round++) {
    const again: PlannedRequest[] = [];
    for (let i = 0; i < pending.length; i += parallelMax) {
      const batch = pending.slice(i, i + parallelMax);
      const got = await Promise.all(batch.map((r) => send(baseUrl, who, r)));
      batch.forEach((r, j) => {
        const answer = got[j];
        if (
          answer === null ||
          answer === undefined ||
          answer.status === 409 ||
          answer.status >= 500
        )
          again.push(r);
        else answers.set(r.key, answer);
      });
    }
    pending = again;
    if (pending.length > 0) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  if (pending.length > 0) throw new Error(`${pending.length} requests never got an answer`);
  return answers;
}

/** A POST retried through an outage: its Idempotency-Key (null: none) and whether it is signed. */
export interface OutageRequest {
  readonly order: string;
  readonly path: string;
  readonly body: Record<string, unknown>;
  readonly idempotencyKey: string | null;
  readonly signed: boolean;
}

export interface OutageRetry {
  /** How long a request is sent again before it fails. */
  readonly retryWindowMs: number;
  /** How long one send waits for its answer. */
  readonly answerTimeoutMs: number;
  /** Sees each 503 (the test checks its Retry-After). */
  readonly on503?: (res: Response, text: string) => void;
}

/**
 * Sends `r` until it gets a 200, tallying every status seen (0: no answer) in `statuses`. No answer, 503 and 409
 * (its key still in flight) are sent again every 100 ms within the window; any other status fails.
 */
export async function sendUntilAnswered(
  baseUrl: string,
  who: Credentials,
  r: OutageRequest,
  statuses: Map<number, number>,
  retry: OutageRetry,
): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    authorization: `Bearer ${who.publicToken}`,
  };
  if (r.idempotencyKey !== null) headers['idempotency-key'] = r.idempotencyKey;
  if (r.signed) headers.sign = computeSign(who.privateToken, r.path, r.body);
  const deadline = Date.now() + retry.retryWindowMs;
  for (;;) {
    let status = 0;
    let text = '';
    try {
      const res = await fetch(`${baseUrl}${r.path}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(r.body),
        signal: AbortSignal.timeout(retry.answerTimeoutMs),
      });
      status = res.status;
      text = await res.text();
      if (status === 503) retry.on503?.(res, text);
    } catch {
      /* no answer: sent again */
    }
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
    if (status === 200) return JSON.parse(text) as Record<string, unknown>;
    if (Date.now() > deadline) throw new Error(`${r.order} never answered: last ${status} ${text}`);
    if (status !== 0 && status !== 503 && status !== 409)
      throw new Error(`${r.order}: ${status} ${text}`);
    await sleep(100);
  }
}

/** One signed request (token, Sign and, for a body, JSON) to a real server; answers the status and parsed body. */
export async function call(
  baseUrl: string,
  who: Credentials,
  method: string,
  pathAndQuery: string,
  body?: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  const [pathOnly, query] = pathAndQuery.split('?') as [string, string | undefined];
  const params = body ?? queryParams(query ?? '');
  const res = await fetch(`${baseUrl}${pathAndQuery}`, {
    method,
    headers: {
      authorization: `Bearer ${who.publicToken}`,
      sign: computeSign(who.privateToken, pathOnly, params),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    /* an HTML or empty answer */
  }
  return { status: res.status, text, json };
}

/** Posts a hosted page's form (the checkout, the mall, the card enrolment) as a browser without JavaScript would. */
export async function postForm(
  baseUrl: string,
  pathAndQuery: string,
  fields: Record<string, string>,
) {
  const res = await fetch(`${baseUrl}${pathAndQuery}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    signal: AbortSignal.timeout(20_000),
  });
  return { status: res.status, text: await res.text() };
}

/** The checkout's card form paid with the approved test card; the page's text, or null without an answer. */
export async function payCheckout(
  baseUrl: string,
  c: { readonly id: string; readonly valid: string },
): Promise<string | null> {
  try {
    const res = await postForm(baseUrl, '/gateway/cobro', {
      id: c.id,
      valid: c.valid,
      method: '1',
      card_number: '4051 8856 0044 6623',
      expiry: cardExpiry,
      cvv: '123',
    });
    return res.status === 200 ? res.text : null;
  } catch {
    return null;
  }
}

/** HTTP to whichever server is up; a request the crash cut off waits for the restart and is sent again as it was. */
export function httpTransport(
  baseUrl: string,
  alive: () => Promise<void>,
  cutOff: { count: number },
): Transport {
  async function retrying(send: () => Promise<Response>): Promise<Reply> {
    for (let attempt = 0; ; attempt++) {
      await alive();
      try {
        const res = await send();
        const text = await res.text();
        if (res.status < 500 && res.status !== 409)
          return {
            status: res.status,
            text,
            replayed: res.headers.get('idempotent-replayed') === 'true',
          };
      } catch (error) {
        if (attempt > 400) throw error;
        cutOff.count++;
      }
      await sleep(50);
    }
  }
  return {
    interrupted: () => cutOff.count,
    api: (who, method, url, body, key) =>
      retrying(() =>
        fetch(`${baseUrl}${url}`, {
          method,
          headers: {
            authorization: `Bearer ${who.publicToken}`,
            sign: computeSign(who.privateToken, url.split('?')[0]!, body ?? {}),
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...(key === undefined ? {} : { 'idempotency-key': key }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      ),
    form: (pathAndQuery, fields) =>
      retrying(() =>
        fetch(`${baseUrl}${pathAndQuery}`, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(fields).toString(),
        }),
      ),
  };
}
