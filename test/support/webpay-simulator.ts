// A local simulator of Transbank's Webpay Plus REST protocol (API v1.2), for tests only: the real `transbank-sdk`
// talks to it through an account's `--environment http://127.0.0.1:PORT`. It keeps transactions in memory and
// serves the payer's pages too:
//   POST /rswebpaytransaction/api/webpay/v1.2/transactions            create  -> { token, url }
//   PUT  /rswebpaytransaction/api/webpay/v1.2/transactions/{token}    commit  -> the authorization
//   GET  /rswebpaytransaction/api/webpay/v1.2/transactions/{token}    status
//   POST /rswebpaytransaction/api/webpay/v1.2/transactions/{token}/refunds   refund
//   POST /webpayserver/initTransaction (form token_ws): the card form; "Pagar" returns to return_url?token_ws=...,
//   "Anular compra y volver" returns with TBK_TOKEN, TBK_ORDEN_COMPRA and TBK_ID_SESION (an abandoned payment).
// Faults a test can arm: `commitFault = 'hang'` charges on commit and never answers (the SDK times out: the lost
// commit), `'reset'` charges and drops the connection, `'drop'` drops it without charging; `statusFault = 'error'` makes status answer 500;
// `refundFault = 'reset'` applies a refund and drops the connection (the lost refund answer), `'drop'` drops it
// without applying anything, `'error'` applies it and answers 502 (a gateway in front of Transbank failing after it
// applied the refund, decision 1210); `createFault = 'error'` answers create with a 503, `'reset'` drops its connection
// (Transbank down when the payer chooses to pay). `rewrite.commit`, `.status` and `.refund` change an answer's body
// after the simulator applied the call: what a faulty acquirer could answer (decision 996). `refundHeld` keeps a
// refund applied and its answer on the way, `statusHeld` a status read, for as long as a test wants (decision 1115).
import type http from 'node:http';
import crypto from 'node:crypto';
import { json, readBody, serveSimulator } from './simulator-http.ts';

const api = '/rswebpaytransaction/api/webpay/v1.2/transactions';

/** Transbank's integration test cards: the VISA approves, the MASTERCARD is declined; any other card is declined. */
const cards: Record<string, { approved: boolean; type: 'credit' | 'debit' }> = {
  '4051885600446623': { approved: true, type: 'credit' },
  '5186059559590568': { approved: false, type: 'credit' },
  '4051884239937763': { approved: true, type: 'debit' },
};

type SimState =
  | 'INITIALIZED'
  | 'PAID_AT_FORM'
  | 'AUTHORIZED'
  | 'FAILED'
  | 'ABANDONED'
  | 'REVERSED'
  | 'NULLIFIED'
  | 'PARTIALLY_NULLIFIED';

interface SimTransaction {
  readonly token: string;
  readonly buyOrder: string;
  readonly sessionId: string;
  readonly amount: number;
  readonly returnUrl: string;
  state: SimState;
  card: string | null;
  installments: number;
  approved: boolean;
  authorizationCode: string | null;
  commits: number;
  balance: number;
  readonly refunds: number[];
  readonly createdAt: Date;
}

export interface WebpaySimulator {
  readonly url: string;
  readonly commerceCode: string;
  readonly apiKey: string;
  readonly transactions: Map<string, SimTransaction>;
  /** Every API call, in order: `create`, `commit`, `status`, `refund`. */
  readonly calls: Array<{ op: string; token: string | null }>;
  commitFault: 'none' | 'hang' | 'reset' | 'drop';
  createFault: 'none' | 'error' | 'reset';
  /** `'error'`: status answers 500 (Transbank unreachable after a lost commit). */
  statusFault: 'none' | 'error';
  refundFault: 'none' | 'reset' | 'drop' | 'error';
  /** Awaited after a refund is applied, before it is answered: a test holds that answer in flight (decision 1115). */
  refundHeld: (() => Promise<void>) | null;
  /** Awaited before a status read is answered (and the charge read for it): a test holds that read in flight. */
  statusHeld: (() => Promise<void>) | null;
  /** Rewrites an answer's body after the call was applied (another amount, buy order, status...). */
  readonly rewrite: {
    commit?: ((body: Record<string, unknown>) => Record<string, unknown>) | undefined;
    status?: ((body: Record<string, unknown>) => Record<string, unknown>) | undefined;
    refund?: ((body: Record<string, unknown>) => Record<string, unknown>) | undefined;
  };
  close(): Promise<void>;
}

function paymentTypeCode(t: SimTransaction): string {
  if (t.card !== null && cards[t.card]?.type === 'debit') return 'VD';
  return t.installments > 1 ? 'VC' : 'VN';
}

/** The body of commit and status (Transbank's field names). */
function detail(t: SimTransaction) {
  const authorized =
    t.state === 'AUTHORIZED' ||
    t.state === 'REVERSED' ||
    t.state === 'NULLIFIED' ||
    t.state === 'PARTIALLY_NULLIFIED';
  return {
    vci: authorized ? 'TSY' : 'TSN',
    amount: t.amount,
    status:
      t.state === 'PAID_AT_FORM' ? 'INITIALIZED' : t.state === 'ABANDONED' ? 'FAILED' : t.state,
    buy_order: t.buyOrder,
    session_id: t.sessionId,
    card_detail: { card_number: t.card === null ? null : t.card.slice(-4) },
    accounting_date: '1125',
    transaction_date: t.createdAt.toISOString(),
    authorization_code: authorized ? t.authorizationCode : null,
    payment_type_code: t.card === null ? null : paymentTypeCode(t),
    response_code: authorized
      ? 0
      : t.state === 'INITIALIZED' || t.state === 'PAID_AT_FORM'
        ? null
        : -1,
    installments_number: t.installments > 1 ? t.installments : 0,
    ...(t.installments > 1 ? { installments_amount: Math.floor(t.amount / t.installments) } : {}),
    ...(t.state === 'PARTIALLY_NULLIFIED' || t.state === 'NULLIFIED' ? { balance: t.balance } : {}),
  };
}

function formPage(t: SimTransaction): string {
  return `<!doctype html><html lang="es"><head><meta charset="utf-8"><title>Webpay (simulador)</title></head><body>
<h1>Webpay Plus · simulador</h1><p data-testid="sim-amount">Monto: ${t.amount}</p>
<form method="post" action="/webpayserver/pay"><input type="hidden" name="token" value="${t.token}">
<label for="card">Número de tarjeta</label><input id="card" name="card">
<label for="cuotas">Cuotas</label><input id="cuotas" name="installments" value="0">
<button type="submit" id="pay">Pagar</button></form>
<form method="post" action="/webpayserver/abort"><input type="hidden" name="token" value="${t.token}">
<button type="submit" id="abort">Anular compra y volver</button></form></body></html>`;
}

function redirect(res: http.ServerResponse, url: string, params: Record<string, string>): void {
  const u = new URL(url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  res.writeHead(303, { location: u.toString() }).end();
}

export async function startWebpaySimulator(): Promise<WebpaySimulator> {
  const transactions = new Map<string, SimTransaction>();
  const calls: Array<{ op: string; token: string | null }> = [];
  const commerceCode = '597055555532';
  const apiKey = '579B532A7440BB0C9079DED94D31EA1615BACEB56610332264630D42D0A36B1C';
  let next = 1;
  // Tokens are unique across simulators, as Transbank's are across its commerces (two simulators in one test).
  const tokenPrefix = crypto.randomBytes(2).toString('hex');
  const sim: WebpaySimulator = {
    url: '',
    commerceCode,
    apiKey,
    transactions,
    calls,
    commitFault: 'none',
    createFault: 'none',
    statusFault: 'none',
    refundFault: 'none',
    refundHeld: null,
    statusHeld: null,
    rewrite: {},
    close: async () => {}, // the server's, once it listens below
  };

  async function handleApi(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    path: string,
  ): Promise<void> {
    if (
      req.headers['tbk-api-key-id'] !== commerceCode ||
      req.headers['tbk-api-key-secret'] !== apiKey
    ) {
      return json(res, 401, { error_message: 'Not Authorized' });
    }
    const rest = path.slice(api.length);
    const body = await readBody(req);
    if (req.method === 'POST' && rest === '') {
      if (sim.createFault === 'reset') {
        req.socket.destroy();
        return;
      }
      if (sim.createFault === 'error')
        return json(res, 503, { error_message: 'Service Unavailable' });
      const input = JSON.parse(body) as {
        buy_order: string;
        session_id: string;
        amount: number;
        return_url: string;
      };
      if (!Number.isInteger(input.amount) || input.amount <= 0)
        return json(res, 422, { error_message: 'Invalid value for parameter: amount' });
      const token = `${tokenPrefix}${String(next++).padStart(60, '0')}`;
      transactions.set(token, {
        token,
        buyOrder: input.buy_order,
        sessionId: input.session_id,
        amount: input.amount,
        returnUrl: input.return_url,
        state: 'INITIALIZED',
        card: null,
        installments: 0,
        approved: false,
        authorizationCode: null,
        commits: 0,
        balance: input.amount,
        refunds: [],
        createdAt: new Date(),
      });
      calls.push({ op: 'create', token });
      return json(res, 200, { token, url: `${sim.url}/webpayserver/initTransaction` });
    }
    const match = /^\/([0-9a-f]{64})(\/refunds)?$/.exec(rest);
    const t = match === null ? undefined : transactions.get(match[1]!);
    if (t === undefined) return json(res, 404, { error_message: 'Transaction not found' });
    if (req.method === 'PUT' && match![2] === undefined) {
      calls.push({ op: 'commit', token: t.token });
      if (sim.commitFault === 'drop') {
        req.socket.destroy(); // the commit never reached Transbank: nothing charged
        return;
      }
      if (t.state !== 'PAID_AT_FORM')
        return json(res, 422, {
          error_message: `Invalid status '${t.state}' for transaction while authorizing`,
        });
      t.commits++;
      t.state = t.approved ? 'AUTHORIZED' : 'FAILED';
      if (t.approved)
        t.authorizationCode = String(100_000 + ((t.amount * 7 + t.commits * 13 + next) % 900_000));
      if (sim.commitFault === 'reset') {
        req.socket.destroy();
        return;
      }
      if (sim.commitFault === 'hang') return; // charged, and the answer never comes
      return json(res, 200, (sim.rewrite.commit ?? ((b) => b))(detail(t)));
    }
    if (req.method === 'GET' && match![2] === undefined) {
      calls.push({ op: 'status', token: t.token });
      if (sim.statusFault === 'error') return json(res, 500, { error_message: 'Internal error' });
      if (sim.statusHeld !== null) await sim.statusHeld();
      return json(res, 200, (sim.rewrite.status ?? ((b) => b))(detail(t)));
    }
    if (req.method === 'POST' && match![2] !== undefined) {
      calls.push({ op: 'refund', token: t.token });
      if (sim.refundFault === 'drop') {
        req.socket.destroy();
        return;
      }
      const amount = (JSON.parse(body) as { amount: number }).amount;
      if (t.state !== 'AUTHORIZED' && t.state !== 'PARTIALLY_NULLIFIED')
        return json(res, 422, { error_message: 'Transaction is not authorized' });
      if (!Number.isInteger(amount) || amount <= 0 || amount > t.balance)
        return json(res, 422, { error_message: 'Invalid amount' });
      t.refunds.push(amount);
      t.balance -= amount;
      t.state =
        amount === t.amount ? 'REVERSED' : t.balance === 0 ? 'NULLIFIED' : 'PARTIALLY_NULLIFIED';
      if (sim.refundFault === 'reset') {
        req.socket.destroy();
        return;
      }
      if (sim.refundFault === 'error') return json(res, 502, { error_message: 'Bad gateway' });
      if (sim.refundHeld !== null) await sim.refundHeld();
      const refundAnswer = sim.rewrite.refund ?? ((b) => b);
      if (t.state === 'REVERSED') return json(res, 200, refundAnswer({ type: 'REVERSED' }));
      return json(
        res,
        200,
        refundAnswer({
          type: 'NULLIFIED',
          authorization_code: `9${String(t.refunds.length).padStart(5, '0')}`,
          authorization_date: new Date().toISOString(),
          nullified_amount: amount,
          balance: t.balance,
          response_code: 0,
        }),
      );
    }
    return json(res, 405, { error_message: 'Method not allowed' });
  }

  async function handlePayer(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    path: string,
  ): Promise<void> {
    const form = new URLSearchParams(await readBody(req));
    const token = form.get('token_ws') ?? form.get('token') ?? '';
    const t = transactions.get(token);
    if (req.method !== 'POST' || t === undefined) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('token_ws desconocido');
      return;
    }
    if (path === '/webpayserver/initTransaction') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(formPage(t));
      return;
    }
    if (t.state !== 'INITIALIZED') {
      res.writeHead(409, { 'content-type': 'text/plain' }).end('transacción ya procesada');
      return;
    }
    if (path === '/webpayserver/abort') {
      t.state = 'ABANDONED';
      return redirect(res, t.returnUrl, {
        TBK_TOKEN: t.token,
        TBK_ORDEN_COMPRA: t.buyOrder,
        TBK_ID_SESION: t.sessionId,
      });
    }
    const card = (form.get('card') ?? '').replace(/\D/g, '');
    t.card = card;
    t.installments = Number(form.get('installments') ?? 0) || 0;
    t.approved = cards[card]?.approved ?? false;
    t.state = 'PAID_AT_FORM';
    return redirect(res, t.returnUrl, { token_ws: t.token });
  }

  const served = await serveSimulator(api, handleApi, handlePayer);
  (sim as { url: string }).url = served.url;
  sim.close = served.close;
  return sim;
}
