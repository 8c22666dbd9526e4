// A local simulator of Transbank's Oneclick Mall REST protocol (API v1.2), for tests only: the real `transbank-sdk`
// talks to it through an account's `--environment http://127.0.0.1:PORT`. It keeps inscriptions and charges in
// memory and serves the payer's registration page too:
//   POST   /rswebpaytransaction/api/oneclick/v1.2/inscriptions            start   -> { token, url_webpay }
//   PUT    /rswebpaytransaction/api/oneclick/v1.2/inscriptions/{token}    finish  -> tbk_user, card type and number
//   DELETE /rswebpaytransaction/api/oneclick/v1.2/inscriptions            delete  -> 204
//   POST   /rswebpaytransaction/api/oneclick/v1.2/transactions            authorize
//   GET    /rswebpaytransaction/api/oneclick/v1.2/transactions/{order}    status (404 for an unknown buy order)
//   POST   /rswebpaytransaction/api/oneclick/v1.2/transactions/{order}/refunds   refund
//   POST /oneclick/inscription (form TBK_TOKEN): the card form; "Inscribir" returns to response_url?TBK_TOKEN=...,
//   "Anular" returns the same way with nothing registered.
// Faults a test can arm: `authorizeFault = 'reset'` charges and drops the connection (the lost authorize answer),
// `'drop'` drops it without charging; `'slow'` drops it while Transbank is still deciding: status answers 404 until the
// next request for that buy order, which finds the first charge made (a resend then meets the duplicate buy order);
// `refundFault` likewise for refunds ('reset', 'drop'); `deleteFailures` answers that many next inscription deletes
// with `deleteFailureStatus` (500 unless set: 429 is Transbank limiting the rate, 401 refusing the keys), nothing
// deleted (Transbank failing, then recovering); `deleteFault = 'reset'` deletes the next inscription and drops the
// connection before answering (the lost answer of a delete, decision 1105). `rewriteRefund` changes a refund's answer after
// the refund was applied (Transbank answering for another amount, decision 989).
import type http from 'node:http';
import { json, readBody, serveSimulator } from './simulator-http.ts';

const api = '/rswebpaytransaction/api/oneclick/v1.2';

/** Transbank's integration cards: both register; charges on the VISA are approved, on the MASTERCARD declined. */
const cards: Record<string, { type: string; chargesApproved: boolean }> = {
  '4051885600446623': { type: 'Visa', chargesApproved: true },
  '5186059559590568': { type: 'MasterCard', chargesApproved: false },
};

interface SimInscription {
  readonly token: string;
  readonly username: string;
  readonly responseUrl: string;
  card: string | null;
  tbkUser: string | null;
}

interface SimCharge {
  readonly buyOrder: string;
  readonly childBuyOrder: string;
  readonly commerceCode: string;
  readonly amount: number;
  readonly approved: boolean;
  readonly card: string;
  status: 'AUTHORIZED' | 'FAILED' | 'REVERSED' | 'NULLIFIED' | 'PARTIALLY_NULLIFIED';
  balance: number;
  readonly refunds: number[];
}

export interface OneclickSimulator {
  readonly url: string;
  readonly commerceCode: string;
  readonly childCommerceCode: string;
  readonly apiKey: string;
  readonly inscriptions: Map<string, SimInscription>;
  /** By parent buy order. */
  readonly charges: Map<string, SimCharge>;
  /** tbk_user -> username of the live inscriptions. */
  readonly users: Map<string, string>;
  readonly calls: Array<{ op: string; key: string | null }>;
  authorizeFault: 'none' | 'reset' | 'drop' | 'slow';
  refundFault: 'none' | 'reset' | 'drop';
  /** Inscription deletes still to answer `deleteFailureStatus` without deleting anything. */
  deleteFailures: number;
  /** The status those deletes answer (500 unless set). */
  deleteFailureStatus: number;
  /** 'reset': the next delete is applied and its connection dropped with no answer. */
  deleteFault: 'none' | 'reset';
  /** Run once, after the next authorize is charged and before it is answered (a race made on purpose). */
  whileAuthorizing: (() => Promise<void>) | null;
  /** Run once, before the next inscription delete is applied and answered (Transbank slow to answer it). */
  whileDeleting: (() => Promise<void>) | null;
  /** Run once, before the next inscription finish is answered (Transbank slow to finish it). */
  whileFinishing: (() => Promise<void>) | null;
  /** Changes the answer of every refund, after the refund itself was applied to the charge. */
  rewriteRefund: ((answer: Record<string, unknown>) => Record<string, unknown>) | null;
  close(): Promise<void>;
}

function chargeBody(c: SimCharge) {
  return {
    buy_order: c.buyOrder,
    card_detail: { card_number: c.card.slice(-4) },
    accounting_date: '1127',
    transaction_date: new Date().toISOString(),
    details: [
      {
        amount: c.amount,
        status: c.status,
        authorization_code: c.approved
          ? `1${c.buyOrder.length}${c.amount % 10_000}`.slice(0, 6)
          : null,
        payment_type_code: 'VN',
        response_code: c.approved ? 0 : -1,
        installments_number: 0,
        commerce_code: c.commerceCode,
        buy_order: c.childBuyOrder,
        ...(c.status === 'NULLIFIED' || c.status === 'PARTIALLY_NULLIFIED'
          ? { balance: c.balance }
          : {}),
      },
    ],
  };
}

function formPage(i: SimInscription): string {
  return `<!doctype html><html lang="es"><head><meta charset="utf-8"><title>Oneclick (simulador)</title></head><body>
<h1>Oneclick Mall · simulador</h1><p>Usuario: ${i.username}</p>
<form method="post" action="/oneclick/enrol"><input type="hidden" name="TBK_TOKEN" value="${i.token}">
<label for="card">Número de tarjeta</label><input id="card" name="card">
<button type="submit" id="enrol">Inscribir</button></form>
<form method="post" action="/oneclick/abort"><input type="hidden" name="TBK_TOKEN" value="${i.token}">
<button type="submit" id="abort">Anular</button></form></body></html>`;
}

export async function startOneclickSimulator(): Promise<OneclickSimulator> {
  const inscriptions = new Map<string, SimInscription>();
  const charges = new Map<string, SimCharge>();
  const users = new Map<string, string>();
  const calls: OneclickSimulator['calls'] = [];
  /** Authorizes taken under the 'slow' fault, by buy order: made when the next authorize of that order arrives. */
  const deciding = new Map<string, () => void>();
  let next = 1;
  const sim: OneclickSimulator = {
    url: '',
    commerceCode: '597055555541',
    childCommerceCode: '597055555542',
    apiKey: '579B532A7440BB0C9079DED94D31EA1615BACEB56610332264630D42D0A36B1C',
    inscriptions,
    charges,
    users,
    calls,
    authorizeFault: 'none',
    refundFault: 'none',
    deleteFailures: 0,
    deleteFailureStatus: 500,
    deleteFault: 'none',
    whileAuthorizing: null,
    whileDeleting: null,
    whileFinishing: null,
    rewriteRefund: null,
    close: async () => {}, // the server's, once it listens below
  };

  function deleteInscription(
    res: http.ServerResponse,
    input: { tbk_user: string; username: string },
  ) {
    if (sim.deleteFailures > 0) {
      sim.deleteFailures--;
      const status = sim.deleteFailureStatus;
      const messages: Record<number, string> = { 429: 'Too many requests', 401: 'Not Authorized' };
      const message = messages[status] ?? 'Internal error';
      return json(res, status, { error_message: message });
    }
    if (users.get(input.tbk_user) !== input.username)
      return json(res, 404, { error_message: 'Inscription not found' });
    users.delete(input.tbk_user);
    if (sim.deleteFault === 'reset') {
      sim.deleteFault = 'none';
      res.socket?.destroy();
      return;
    }
    res.writeHead(204).end();
  }

  function inscriptionApi(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    rest: string,
    body: string,
  ) {
    if (req.method === 'POST' && rest === '') {
      const input = JSON.parse(body) as { username: string; email: string; response_url: string };
      const token = `01ab${String(next++).padStart(60, '0')}`;
      inscriptions.set(token, {
        token,
        username: input.username,
        responseUrl: input.response_url,
        card: null,
        tbkUser: null,
      });
      calls.push({ op: 'start', key: token });
      return json(res, 200, { token, url_webpay: `${sim.url}/oneclick/inscription` });
    }
    if (req.method === 'DELETE' && rest === '') {
      const input = JSON.parse(body) as { tbk_user: string; username: string };
      calls.push({ op: 'delete', key: input.tbk_user });
      const hook = sim.whileDeleting;
      if (hook !== null) {
        sim.whileDeleting = null;
        return void hook().then(() => deleteInscription(res, input));
      }
      return deleteInscription(res, input);
    }
    const i = inscriptions.get(rest.slice(1));
    if (req.method !== 'PUT' || i === undefined)
      return json(res, 404, { error_message: 'Inscription not found' });
    calls.push({ op: 'finish', key: i.token });
    if (i.card === null || cards[i.card] === undefined)
      return json(res, 200, { response_code: -96 });
    i.tbkUser ??= `tbk-${i.token.slice(-8)}-${next++}`;
    users.set(i.tbkUser, i.username);
    const answer = {
      response_code: 0,
      tbk_user: i.tbkUser,
      authorization_code: '1213',
      card_type: cards[i.card]!.type,
      card_number: `XXXXXXXXXXXX${i.card.slice(-4)}`,
    };
    const hook = sim.whileFinishing;
    if (hook !== null) {
      sim.whileFinishing = null;
      return void hook().then(() => json(res, 200, answer));
    }
    return json(res, 200, answer);
  }

  function transactionApi(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    rest: string,
    body: string,
  ) {
    if (req.method === 'POST' && rest === '') {
      const input = JSON.parse(body) as {
        username: string;
        tbk_user: string;
        buy_order: string;
        details: Array<{ commerce_code: string; buy_order: string; amount: number }>;
      };
      calls.push({ op: 'authorize', key: input.buy_order });
      deciding.get(input.buy_order)?.();
      if (sim.authorizeFault === 'drop') {
        req.socket.destroy();
        return;
      }
      if (users.get(input.tbk_user) !== input.username)
        return json(res, 422, { error_message: 'Invalid tbk_user' });
      const detail = input.details[0]!;
      // As Transbank: a buy order is at most 26 characters and never repeats, the parent in the mall and the child
      // in its store (decision 1006).
      const childUsed = [...charges.values()].some(
        (x) => x.commerceCode === detail.commerce_code && x.childBuyOrder === detail.buy_order,
      );
      if (
        charges.has(input.buy_order) ||
        childUsed ||
        input.buy_order.length > 26 ||
        detail.buy_order.length > 26
      )
        return json(res, 422, { error_message: 'Invalid value for parameter: buy_order' });
      if (detail.commerce_code !== sim.childCommerceCode)
        return json(res, 422, { error_message: 'Invalid commerce_code' });
      const i = [...inscriptions.values()].find((x) => x.tbkUser === input.tbk_user)!;
      const approved = cards[i.card!]!.chargesApproved;
      const c: SimCharge = {
        buyOrder: input.buy_order,
        childBuyOrder: detail.buy_order,
        commerceCode: detail.commerce_code,
        amount: detail.amount,
        approved,
        card: i.card!,
        status: approved ? 'AUTHORIZED' : 'FAILED',
        balance: detail.amount,
        refunds: [],
      };
      if (sim.authorizeFault === 'slow') {
        deciding.set(c.buyOrder, () => {
          deciding.delete(c.buyOrder);
          charges.set(c.buyOrder, c);
        });
        req.socket.destroy();
        return;
      }
      charges.set(c.buyOrder, c);
      if (sim.authorizeFault === 'reset') {
        req.socket.destroy();
        return;
      }
      const hook = sim.whileAuthorizing;
      if (hook !== null) {
        sim.whileAuthorizing = null;
        void hook().then(
          () => json(res, 200, chargeBody(c)),
          () => req.socket.destroy(),
        );
        return;
      }
      return json(res, 200, chargeBody(c));
    }
    const match = /^\/([^/]+)(\/refunds)?$/.exec(rest);
    const c = match === null ? undefined : charges.get(match[1]!);
    if (c === undefined) return json(res, 404, { error_message: 'Transaction not found' });
    if (req.method === 'GET' && match![2] === undefined) {
      calls.push({ op: 'status', key: c.buyOrder });
      return json(res, 200, chargeBody(c));
    }
    if (req.method === 'POST' && match![2] !== undefined) {
      calls.push({ op: 'refund', key: c.buyOrder });
      if (sim.refundFault === 'drop') {
        req.socket.destroy();
        return;
      }
      const input = JSON.parse(body) as {
        commerce_code: string;
        detail_buy_order: string;
        amount: number;
      };
      if (input.commerce_code !== c.commerceCode || input.detail_buy_order !== c.childBuyOrder)
        return json(res, 422, { error_message: 'Invalid detail' });
      if (c.status !== 'AUTHORIZED' && c.status !== 'PARTIALLY_NULLIFIED')
        return json(res, 422, { error_message: 'Transaction is not authorized' });
      if (!Number.isInteger(input.amount) || input.amount <= 0 || input.amount > c.balance)
        return json(res, 422, { error_message: 'Invalid amount' });
      c.refunds.push(input.amount);
      c.balance -= input.amount;
      c.status =
        input.amount === c.amount
          ? 'REVERSED'
          : c.balance === 0
            ? 'NULLIFIED'
            : 'PARTIALLY_NULLIFIED';
      if (sim.refundFault === 'reset') {
        req.socket.destroy();
        return;
      }
      const answer: Record<string, unknown> =
        c.status === 'REVERSED'
          ? { type: 'REVERSED' }
          : {
              type: 'NULLIFIED',
              authorization_code: `8${String(c.refunds.length).padStart(5, '0')}`,
              authorization_date: new Date().toISOString(),
              nullified_amount: input.amount,
              balance: c.balance,
              response_code: 0,
            };
      return json(res, 200, sim.rewriteRefund === null ? answer : sim.rewriteRefund(answer));
    }
    return json(res, 405, { error_message: 'Method not allowed' });
  }

  async function handleApi(req: http.IncomingMessage, res: http.ServerResponse, path: string) {
    if (
      req.headers['tbk-api-key-id'] !== sim.commerceCode ||
      req.headers['tbk-api-key-secret'] !== sim.apiKey
    )
      return json(res, 401, { error_message: 'Not Authorized' });
    const body = await readBody(req);
    const rest = path.slice(api.length);
    if (rest.startsWith('/inscriptions'))
      return inscriptionApi(req, res, rest.slice('/inscriptions'.length), body);
    if (rest.startsWith('/transactions'))
      return transactionApi(req, res, rest.slice('/transactions'.length), body);
    return json(res, 404, { error_message: 'Not found' });
  }

  async function handlePayer(req: http.IncomingMessage, res: http.ServerResponse, path: string) {
    const form = new URLSearchParams(await readBody(req));
    const i = inscriptions.get(form.get('TBK_TOKEN') ?? '');
    if (req.method !== 'POST' || i === undefined) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('TBK_TOKEN desconocido');
      return;
    }
    if (path === '/oneclick/inscription') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(formPage(i));
      return;
    }
    if (path === '/oneclick/enrol') i.card = (form.get('card') ?? '').replace(/\D/g, '');
    const back = new URL(i.responseUrl);
    back.searchParams.set('TBK_TOKEN', i.token);
    res.writeHead(303, { location: back.toString() }).end();
  }

  const served = await serveSimulator(api, handleApi, handlePayer);
  (sim as { url: string }).url = served.url;
  sim.close = served.close;
  return sim;
}
