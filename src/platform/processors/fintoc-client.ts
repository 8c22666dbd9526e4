// The one file that imports Fintoc's official client (`fintoc` 1.15.0), loaded on the first call to Fintoc. `new Fintoc()` takes no base URL, so the
// client is built from the package's own `Client` class and managers, with the paths `Fintoc` gives them and the
// account's host in place of the constant (decision 510): requests, headers, idempotency keys and error mapping
// stay the client's. The client sets no timeout: each call is raced against `timeoutMs`, and a call that loses
// is an answer lost (it may still land), never "nothing was sent". Its answers are read by status, and a body that
// cannot be read is no answer (fintoc-failure.ts, decision 1240).
import { Client } from 'fintoc/build/main/lib/client.js';
import { API_BASE_URL } from 'fintoc/build/main/lib/constants.js';
import { WebhookSignature } from 'fintoc/build/main/index.js';
import { readAnswersOf } from './fintoc-failure.ts';
import {
  CheckoutSessionsManager,
  PaymentIntentsManager,
  RefundsManager,
} from 'fintoc/build/main/lib/managers/index.js';
import { AccountsManager, TransfersManager } from 'fintoc/build/main/lib/managers/v2/index.js';
import { version } from 'fintoc/build/main/lib/version.js';

/** Fintoc's production host, the client's own constant (fintoc-settings.ts writes it out; a test compares). */
export const fintocProductionUrl: string = API_BASE_URL;

/** The paths `new Fintoc()` mounts these managers on (checked against the package by a test). */
export const fintocPaths = {
  checkoutSessions: '/v1/checkout_sessions',
  paymentIntents: '/v1/payment_intents',
  refunds: '/v1/refunds',
  transfers: '/v2/transfers',
  accounts: '/v2/accounts',
} as const;

export interface FintocHost {
  readonly baseUrl: string;
  readonly secretKey: string;
  /** PEM of the JWS key Fintoc's Transfers API requires; null where no transfer is sent. */
  readonly jwsPrivateKey: string | null;
  readonly timeoutMs: number;
}

/** A Fintoc object as plain JSON (the client wraps answers in resource classes; `serialize` gives them back). */
type FintocObject = Record<string, unknown>;

export interface FintocApi {
  createCheckoutSession(body: FintocObject, idempotencyKey: string): Promise<FintocObject>;
  getCheckoutSession(id: string): Promise<FintocObject>;
  expireCheckoutSession(id: string): Promise<FintocObject>;
  /** One payment intent by its id (Fintoc's "Retrieve a Payment Intent"; decision 1215's read of a late success). */
  getPaymentIntent(id: string): Promise<FintocObject>;
  createTransfer(body: FintocObject, idempotencyKey: string): Promise<FintocObject>;
  /** One transfer by its id (Fintoc's "Retrieve a Transfer", GET /v2/transfers/{id}; decision 992's lookup). */
  getTransfer(id: string): Promise<FintocObject>;
  createRefund(body: FintocObject, idempotencyKey: string): Promise<FintocObject>;
  getRefund(id: string): Promise<FintocObject>;
  /** The refunds created since `sinceIso`, at most `max` (decision 785's lookup; Fintoc's "List refunds"). */
  listRefunds(sinceIso: string, max: number): Promise<FintocObject[]>;
  /** The account's outbound transfers created since `sinceIso`, at most `max` (decision 750's lookup). */
  listOutboundTransfers(accountId: string, sinceIso: string, max: number): Promise<FintocObject[]>;
  /** The account's movements, at most `max`: pages past it are never asked for. */
  listMovements(
    accountId: string,
    query: Record<string, string>,
    max: number,
  ): Promise<FintocObject[]>;
}

function plain(value: unknown): FintocObject {
  const v = value as { serialize?: () => FintocObject };
  return typeof v.serialize === 'function' ? v.serialize() : (value as FintocObject);
}

/** The first `max` items of one of the client's lazy lists: it fetches a page only when the one before is used up. */
async function firstOf(pages: unknown, max: number): Promise<FintocObject[]> {
  const out: FintocObject[] = [];
  for await (const item of pages as AsyncIterable<unknown>) {
    if (out.length >= max) break;
    out.push(plain(item));
  }
  return out;
}

/** The first `max` items of the list `pages` opens, the whole read raced against `timeoutMs`. */
function listed(
  pages: () => Promise<unknown>,
  max: number,
  timeoutMs: number,
  what: string,
): Promise<FintocObject[]> {
  return bounded((async () => firstOf(await pages(), max))(), timeoutMs, what);
}

function bounded<T>(call: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Fintoc ${what}: no answer in ${timeoutMs} ms`)),
      timeoutMs,
    );
    timer.unref();
  });
  return Promise.race([call, timeout]).finally(() => clearTimeout(timer));
}

export function fintocApi(host: FintocHost): FintocApi {
  const client = new Client({
    baseUrl: host.baseUrl,
    apiKey: host.secretKey,
    userAgent: `fintoc-node/${version}`,
    ...(host.jwsPrivateKey === null ? {} : { jwsPrivateKey: host.jwsPrivateKey }),
  });
  readAnswersOf(client);
  const sessions = new CheckoutSessionsManager(fintocPaths.checkoutSessions, client);
  const intents = new PaymentIntentsManager(fintocPaths.paymentIntents, client);
  const refunds = new RefundsManager(fintocPaths.refunds, client);
  const transfers = new TransfersManager(fintocPaths.transfers, client);
  const accounts = new AccountsManager(fintocPaths.accounts, client);
  const t = host.timeoutMs;
  return {
    createCheckoutSession: async (body, key) =>
      plain(
        await bounded(
          sessions.create({ ...body, idempotency_key: key } as never),
          t,
          'create checkout session',
        ),
      ),
    getCheckoutSession: async (id) =>
      plain(await bounded(sessions.get(id), t, 'get checkout session')),
    expireCheckoutSession: async (id) =>
      plain(await bounded(sessions.expire(id), t, 'expire checkout session')),
    getPaymentIntent: async (id) => plain(await bounded(intents.get(id), t, 'get payment intent')),
    createTransfer: async (body, key) =>
      plain(
        await bounded(
          transfers.create({ ...body, idempotency_key: key } as never),
          t,
          'create transfer',
        ),
      ),
    getTransfer: async (id) => plain(await bounded(transfers.get(id), t, 'get transfer')),
    createRefund: async (body, key) =>
      plain(
        await bounded(
          refunds.create({ ...body, idempotency_key: key } as never),
          t,
          'create refund',
        ),
      ),
    getRefund: async (id) => plain(await bounded(refunds.get(id), t, 'get refund')),
    listRefunds: (sinceIso, max) =>
      listed(() => refunds.list({ since: sinceIso, lazy: true } as never), max, t, 'list refunds'),
    listOutboundTransfers: (accountId, sinceIso, max) =>
      listed(
        () =>
          transfers.list({
            account_id: accountId,
            direction: 'outbound',
            since: sinceIso,
            lazy: true,
          } as never),
        max,
        t,
        'list transfers',
      ),
    listMovements: (accountId, query, max) =>
      listed(
        () => accounts.movements.list({ account_id: accountId, ...query, lazy: true }),
        max,
        t,
        'list movements',
      ),
  };
}

/** Whether `header` (`Fintoc-Signature`) signs `rawBody` under `secret`, by the client's own helper. */
export function fintocSignatureValid(
  rawBody: string,
  header: string | undefined,
  secret: string,
): boolean {
  try {
    WebhookSignature.verifyHeader(rawBody, header ?? '', secret);
    return true;
  } catch {
    return false;
  }
}

/**
 * The one reader of a failed Fintoc call (decisions 1240, 1245): a 4xx other than 409 and 429 is a refusal; anything
 * else may have happened.
 */
export { fintocRefused } from './fintoc-failure.ts';
