// A local simulator of the Fintoc endpoints Cobro uses, for tests only: the real `fintoc` client talks to it
// through an account's `--environment http://127.0.0.1:PORT` (decision 510). State is in memory.
//   POST /v1/checkout_sessions                 create (Idempotency-Key: the same key answers the same session;
//                                              `expires_at` kept as given, a day by default, never enforced)
//   GET  /v1/checkout_sessions/{id}            read
//   POST /v1/checkout_sessions/{id}/expire     expire a `created` session (otherwise 400, as Fintoc)
//   GET  /v1/payment_intents/{id}              read the payment intent a session's payer paid (as the session holds it)
//   GET  /pay/{id}                             the payer's page: "Pagar" and "Cancelar" links
//   GET  /pay/{id}/paid | /pay/{id}/cancel     the payer's choice; answers 303 to success_url / cancel_url
//   POST /v2/transfers                         create (Idempotency-Key: one transfer per key; needs the JWS header)
//   GET  /v2/transfers                         the outbound transfers (`direction=outbound`), newest first
//   GET  /v2/transfers/{id}                    read a transfer (its status as `transfers` holds it; a test moves it)
//   GET  /v2/accounts/{acc}/movements          the account's movements as Fintoc documents them (unsigned `amount`,
//                                              `direction`, the transfer or payment intent in `resource_id`); a
//                                              transfer a test sets `returned` shows its outbound movement and an
//                                              inbound `transfer_return`, each naming the other in `return_pair_id`
//   POST /v1/refunds                           refund a payment intent (Idempotency-Key: one refund per key)
//   GET  /v1/refunds                           the refunds, newest first (`since`: created on or after it)
//   GET  /v1/refunds/{id}                      read a refund (its status as `refunds` holds it)
// Faults: `transferFault = 'reset'` creates the transfer and drops the connection (the lost answer); `'drop'` drops
// it without creating anything; `'refuse'` answers 400 invalid_request_error. `transferListFault = 'fail'` answers
// the transfer list and a transfer's read 500. `refundFault` likewise for refunds (`'reset'`, `'drop'`, `'refuse'`), `refundListFault =
// 'fail'` for the refund list. `transferAnswer` / `refundAnswer` make the object, then send this status and raw body
// in place of Fintoc's answer (a gateway's 5xx after Fintoc acted, a garbled 200; decision 1240); `expireAnswer`
// answers a session's expire so, expiring nothing. `forgetKeys()` drops every idempotency key, as Fintoc may once a key is 24 hours old:
// a request with a forgotten key is taken as new. `signedEvent` signs a webhook as Fintoc does (`Fintoc-Signature`).
import crypto from 'node:crypto';
import http from 'node:http';

type Obj = Record<string, unknown>;

/** An answer as sent on the wire: a status, a content type and a body that need not be JSON. */
export interface RawAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

export interface FintocSimulator {
  readonly url: string;
  readonly secretKey: string;
  readonly webhookSecret: string;
  readonly sessions: Map<string, Obj>;
  readonly transfers: Map<string, Obj>;
  /** Refunds by id: a test moves one to its final status by setting `status`. */
  readonly refunds: Map<string, Obj>;
  /** Movements added by hand (a deposit nobody expected). */
  readonly extraMovements: Obj[];
  transferFault: 'reset' | 'drop' | 'refuse' | null;
  transferListFault: 'fail' | null;
  /** The transfer is made, and this answer (status and raw body) sent in place of Fintoc's. */
  transferAnswer: RawAnswer | null;
  /** The refund is made, and this answer (status and raw body) sent in place of Fintoc's. */
  refundAnswer: RawAnswer | null;
  /** A session's expire is answered with this (status and raw body), and the session left as it was. */
  expireAnswer: RawAnswer | null;
  /** A transfer's read (GET /v2/transfers/{id}) waits for its id's promise before answering: a lookup in flight. */
  readonly transferReadGates: Map<string, Promise<void>>;
  /** A payment intent's read (GET /v1/payment_intents/{id}) waits for its id's promise: a read in flight. */
  readonly intentReadGates: Map<string, Promise<void>>;
  /** The status a new refund is answered with: Fintoc answers `created` or `in_progress`, final later. */
  refundStatus: string;
  /**
   * `'refuse'`: a refund is answered 400 invalid_request_error (more than the intent's refundable amount, say);
   * `'reset'`: the refund is made and the connection dropped (the lost answer); `'drop'`: dropped, nothing made.
   */
  refundFault: 'refuse' | 'reset' | 'drop' | null;
  /** `'fail'`: the refund list answers 500. */
  refundListFault: 'fail' | null;
  /** Forgets every idempotency key (Fintoc keeps one about 24 hours): the same key then makes a new object. */
  forgetKeys(): void;
  /** Movements a page of the movements list (Fintoc's `Link: <...>; rel="next"` paging); null: one page. */
  movementsPerPage: number | null;
  /** Every API call as `METHOD path`. */
  readonly calls: string[];
  /** A webhook event of `type` about `data`, with its body and signature header (at `atSeconds`, default now). */
  signedEvent(
    type: string,
    data: Obj,
    atSeconds?: number,
  ): { body: string; signature: string; id: string };
  close(): Promise<void>;
}

export async function startFintocSimulator(): Promise<FintocSimulator> {
  const secretKey = `sk_test_${crypto.randomBytes(8).toString('hex')}`;
  const webhookSecret = `whsec_${crypto.randomBytes(12).toString('hex')}`;
  const sessions = new Map<string, Obj>();
  const transfers = new Map<string, Obj>();
  const refunds = new Map<string, Obj>();
  const byKey = new Map<string, Obj>();
  const calls: string[] = [];
  const extraMovements: Obj[] = [];
  let n = 0;
  let base = '';
  const sim: FintocSimulator = {
    url: '',
    secretKey,
    webhookSecret,
    sessions,
    transfers,
    refunds,
    extraMovements,
    transferFault: null,
    transferListFault: null,
    transferAnswer: null,
    refundAnswer: null,
    expireAnswer: null,
    transferReadGates: new Map(),
    intentReadGates: new Map(),
    refundStatus: 'succeeded',
    refundFault: null,
    refundListFault: null,
    forgetKeys: () => byKey.clear(),
    movementsPerPage: null,
    calls,
    signedEvent(type, data, atSeconds) {
      const id = `evt_${++n}`;
      const body = JSON.stringify({
        id,
        type,
        mode: 'test',
        created_at: new Date().toISOString(),
        data,
      });
      const t = atSeconds ?? Math.floor(Date.now() / 1000);
      const v1 = crypto.createHmac('sha256', webhookSecret).update(`${t}.${body}`).digest('hex');
      return { body, signature: `t=${t},v1=${v1}`, id };
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const sendRaw = (res: http.ServerResponse, a: RawAnswer) => {
    res.writeHead(a.status, { 'content-type': a.contentType });
    res.end(a.body);
  };
  const apiError = (res: http.ServerResponse, status: number, type: string, message: string) =>
    send(res, status, { error: { type, message } });

  /** Fintoc's Movement object (docs.fintoc.com, "The Movement object"): no metadata, no sign on the amount. */
  function movement(id: string, of: Obj, direction: string, resourceId: unknown, pair?: Obj): Obj {
    return {
      id,
      object: 'movement',
      account_id: 'acc_sim1',
      amount: Number(of.amount),
      currency: of.currency,
      direction,
      mode: 'test',
      resource_id: resourceId,
      return_pair_id: null,
      transaction_date: of.created_at,
      type: 'transfer',
      ...pair,
    };
  }

  function movements(): Obj[] {
    const out: Obj[] = [];
    for (const t of transfers.values()) {
      const [paid, back] = [`mov_${String(t.id)}`, `mov_ret_${String(t.id)}`];
      if (t.status === 'returned') {
        // Fintoc's reversal pair (docs.fintoc.com, "The Movement object"): the payment and its `transfer_return`.
        out.push(movement(paid, t, 'outbound', t.id, { return_pair_id: back }));
        out.push(
          movement(back, t, 'inbound', t.id, { return_pair_id: paid, type: 'transfer_return' }),
        );
      } else if (t.status !== 'failed' && t.status !== 'rejected')
        out.push(movement(paid, t, 'outbound', t.id));
    }
    for (const s of sessions.values()) {
      const intent = (s.payment_resource as Obj | undefined)?.payment_intent as Obj | undefined;
      if (intent?.status === 'succeeded')
        out.push(movement(`mov_${String(intent.id)}`, s, 'inbound', intent.id));
    }
    return [...out, ...extraMovements];
  }

  async function api(req: http.IncomingMessage, res: http.ServerResponse, path: string, body: Obj) {
    const key = String(req.headers['idempotency-key'] ?? '');
    if (req.method === 'POST' && path === '/v1/checkout_sessions') {
      const old = byKey.get(`cs:${key}`);
      if (old !== undefined) return send(res, 201, old);
      // Fintoc takes `expires_at` as an ISO 8601 time and defaults it to a day after the create (its API
      // reference). The simulator keeps it and shows it, but never expires a session by time: tests run Cobro
      // on a manual clock, far from this process's.
      if (body.expires_at !== undefined && Number.isNaN(Date.parse(String(body.expires_at))))
        return apiError(res, 400, 'invalid_request_error', 'expires_at is not an ISO 8601 time');
      const createdAt = new Date();
      const id = `cs_${++n}`;
      const s: Obj = {
        id,
        object: 'checkout_session',
        status: 'created',
        amount: body.amount,
        currency: body.currency,
        success_url: body.success_url,
        cancel_url: body.cancel_url,
        metadata: body.metadata,
        redirect_url: `${base}/pay/${id}`,
        created_at: createdAt.toISOString(),
        expires_at: body.expires_at ?? new Date(createdAt.getTime() + 24 * 3_600_000).toISOString(),
      };
      sessions.set(id, s);
      byKey.set(`cs:${key}`, s);
      return send(res, 201, s);
    }
    const cs = /^\/v1\/checkout_sessions\/([\w]+)(\/expire)?$/.exec(path);
    if (cs !== null) {
      const s = sessions.get(cs[1]!);
      if (s === undefined) return apiError(res, 404, 'invalid_request_error', 'no such session');
      if (cs[2] !== undefined) {
        if (sim.expireAnswer !== null) return sendRaw(res, sim.expireAnswer);
        // Fintoc expires a session only while it is `created` (its API reference); otherwise it refuses.
        if (s.status !== 'created')
          return apiError(res, 400, 'invalid_request_error', `session is ${String(s.status)}`);
        s.status = 'expired';
      }
      return send(res, 200, s);
    }
    const pi = /^\/v1\/payment_intents\/([\w]+)$/.exec(path);
    if (req.method === 'GET' && pi !== null) {
      await sim.intentReadGates.get(pi[1]!);
      for (const s of sessions.values()) {
        const intent = (s.payment_resource as Obj | undefined)?.payment_intent as Obj | undefined;
        if (intent?.id === pi[1]) return send(res, 200, intent);
      }
      return apiError(res, 404, 'invalid_request_error', 'no such payment intent');
    }
    if (req.method === 'POST' && path === '/v2/transfers') {
      if (typeof req.headers['fintoc-jws-signature'] !== 'string')
        return apiError(res, 401, 'authentication_error', 'transfers need a JWS signature');
      if (sim.transferFault === 'refuse')
        return apiError(
          res,
          400,
          'invalid_request_error',
          'counterparty account_number is invalid',
        );
      if (sim.transferFault === 'drop') {
        req.socket.destroy();
        return;
      }
      let t = byKey.get(`tr:${key}`);
      if (t === undefined) {
        t = {
          id: `tr_${++n}`,
          object: 'transfer',
          status: 'pending',
          direction: 'outbound',
          amount: body.amount,
          currency: body.currency,
          counterparty: body.counterparty,
          metadata: body.metadata,
          reference_id: body.reference_id,
          created_at: new Date().toISOString(),
        };
        transfers.set(String(t.id), t);
        byKey.set(`tr:${key}`, t);
      }
      if (sim.transferFault === 'reset') {
        req.socket.destroy();
        return;
      }
      if (sim.transferAnswer !== null) return sendRaw(res, sim.transferAnswer);
      return send(res, 201, t);
    }
    if (req.method === 'GET' && path === '/v2/transfers') {
      if (sim.transferListFault === 'fail') return apiError(res, 500, 'api_error', 'unavailable');
      return send(res, 200, [...transfers.values()].reverse());
    }
    const tr = /^\/v2\/transfers\/([\w]+)$/.exec(path);
    if (req.method === 'GET' && tr !== null) {
      if (sim.transferListFault === 'fail') return apiError(res, 500, 'api_error', 'unavailable');
      await sim.transferReadGates.get(tr[1]!);
      const found = transfers.get(tr[1]!);
      return found === undefined
        ? apiError(res, 404, 'invalid_request_error', 'no such transfer')
        : send(res, 200, found);
    }
    if (req.method === 'GET' && /^\/v2\/accounts\/[\w]+\/movements$/.test(path)) {
      const all = movements();
      const size = sim.movementsPerPage;
      if (size === null) return send(res, 200, all);
      const page = Number(new URL(req.url ?? '/', base).searchParams.get('page') ?? '1');
      if (page * size < all.length)
        res.setHeader('link', `<${base}${path}?page=${page + 1}>; rel="next"`);
      return send(res, 200, all.slice((page - 1) * size, page * size));
    }
    if (req.method === 'POST' && path === '/v1/refunds' && sim.refundFault === 'refuse')
      return apiError(res, 400, 'invalid_request_error', 'the payment intent cannot be refunded');
    if (req.method === 'POST' && path === '/v1/refunds') {
      if (sim.refundFault === 'drop') {
        req.socket.destroy();
        return;
      }
      let r = byKey.get(`re:${key}`);
      if (r === undefined) {
        r = {
          id: `ref_${++n}`,
          object: 'refund',
          status: sim.refundStatus,
          amount: body.amount,
          currency: 'CLP',
          resource_type: body.resource_type,
          resource_id: body.resource_id,
          metadata: body.metadata ?? {},
          failure_code: null,
          created_at: new Date().toISOString(),
        };
        refunds.set(String(r.id), r);
        // Fintoc answers a key it saw with its first answer, though the refund may have moved on since.
        byKey.set(`re:${key}`, { ...r });
      }
      if (sim.refundFault === 'reset') {
        req.socket.destroy();
        return;
      }
      if (sim.refundAnswer !== null) return sendRaw(res, sim.refundAnswer);
      return send(res, 201, r);
    }
    if (req.method === 'GET' && path === '/v1/refunds') {
      if (sim.refundListFault === 'fail') return apiError(res, 500, 'api_error', 'unavailable');
      const since = new URL(req.url ?? '/', base).searchParams.get('since');
      const all = [...refunds.values()].reverse();
      return send(
        res,
        200,
        since === null
          ? all
          : all.filter((r) => Date.parse(String(r.created_at)) >= Date.parse(since)),
      );
    }
    const re = /^\/v1\/refunds\/([\w]+)$/.exec(path);
    if (req.method === 'GET' && re !== null) {
      const r = refunds.get(re[1]!);
      return r === undefined
        ? apiError(res, 404, 'invalid_request_error', 'no such refund')
        : send(res, 200, r);
    }
    return apiError(res, 404, 'invalid_request_error', `no route ${req.method} ${path}`);
  }

  function payerPage(res: http.ServerResponse, id: string, action: string | undefined) {
    const s = sessions.get(id);
    if (s === undefined) return send(res, 404, {});
    if (action === undefined) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(
        `<!doctype html><title>Fintoc</title><h1>Fintoc (simulador)</h1><p>${String(s.amount)} ${String(s.currency)}</p><a id="pay" href="/pay/${id}/paid">Pagar</a> <a id="cancel" href="/pay/${id}/cancel">Cancelar</a>`,
      );
    }
    if (action === 'paid' && s.status === 'created') {
      s.status = 'finished';
      s.payment_resource = {
        payment_intent: {
          id: `pi_${++n}`,
          object: 'payment_intent',
          status: 'succeeded',
          amount: s.amount,
          currency: s.currency,
        },
      };
    }
    res.writeHead(303, { location: String(action === 'paid' ? s.success_url : s.cancel_url) });
    return res.end();
  }

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const page = /^\/pay\/(\w+)(?:\/(paid|cancel))?$/.exec(path);
      if (page !== null) return payerPage(res, page[1]!, page[2]);
      calls.push(`${req.method} ${path}`);
      if (req.headers.authorization !== secretKey)
        return apiError(res, 401, 'authentication_error', 'invalid API key');
      void api(req, res, path, raw === '' || raw === 'undefined' ? {} : (JSON.parse(raw) as Obj));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  base = `http://127.0.0.1:${port}`;
  (sim as { url: string }).url = base;
  return sim;
}
