// Every way a client writes an integer, over integer fields of several routes (decision 1160): each answer is the
// exact integer meant, or a 400 in the seed's shape naming the field; never a 500, never another number.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyRequest } from 'fastify';
import { computeSign } from '../../../src/platform/auth/sign.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { eventBody } from '../../modules/refunds/helpers.ts';
import { limits } from '../../../src/limits/index.ts';
import { integerOfNumberText } from '../../../src/platform/http/integer-number.ts';
import { eventLimits, transactionLimits } from '../../../src/limits/modules.ts';

/** The form as sent (a JSON literal in a body, the query's text) and the integer it means, or null if refused. */
interface Form {
  readonly literal: string;
  readonly means: number | null;
}

/**
 * The rule: a JSON number is its value when that value is exactly an integer a double holds (any spelling); a
 * string, and a query's text, is plain ASCII digits with an optional minus. Everything else is refused.
 */
const forms: readonly Form[] = [
  { literal: '100', means: 100 },
  { literal: '"100"', means: 100 },
  { literal: '100.0', means: 100 },
  { literal: '"100.0"', means: null },
  { literal: '1e2', means: 100 },
  { literal: '"1e2"', means: null },
  { literal: '1E2', means: 100 },
  { literal: '1.0e2', means: 100 },
  { literal: '10000e-2', means: 100 },
  { literal: '100.00000000000000001', means: null },
  { literal: '1.00000000000000001e2', means: null },
  { literal: '100.5', means: null },
  { literal: '"100.5"', means: null },
  { literal: '-100', means: -100 },
  { literal: '" 100 "', means: null },
  { literal: '"0x64"', means: null },
  { literal: '"１００"', means: null },
  { literal: '1e400', means: null },
  { literal: '1e-400', means: null },
  { literal: '9007199254740993', means: null },
  { literal: '"9007199254740993"', means: null },
  { literal: '9007199254740993.0', means: null },
];

/** The query's text for the same forms: a query has no number type, so it is read as a string. */
const queryForms: readonly Form[] = [
  { literal: '100', means: 100 },
  { literal: '100.0', means: null },
  { literal: '1e2', means: null },
  { literal: '1E2', means: null },
  { literal: '100.5', means: null },
  { literal: '-100', means: -100 },
  { literal: ' 100 ', means: null },
  { literal: '0x64', means: null },
  { literal: '１００', means: null },
  { literal: '1e400', means: null },
  { literal: '9007199254740993', means: null },
];

interface Target {
  readonly name: string;
  readonly url: string;
  readonly field: string;
  readonly base: Record<string, unknown>;
  /** The field's bounds: a value meant outside them is refused as too small or too large, still naming it. */
  readonly minimum: number;
  readonly maximum: number;
}

const targets: readonly Target[] = [
  {
    name: 'transaction amount',
    url: '/api/transaction',
    field: 'amount',
    base: { email: 'payer@example.com', order: 'f-1', subject: 'Compra' },
    minimum: 1,
    maximum: transactionLimits.amountIntegerMax,
  },
  {
    name: 'nullification amount',
    url: '/api/nullification',
    field: 'amount',
    base: { id: 'nosuchtransaction', subject: 'Devolución' },
    minimum: 1,
    maximum: transactionLimits.amountIntegerMax,
  },
  {
    name: 'payout amount',
    url: '/api/wallet/payout',
    field: 'amount',
    base: {
      email: 'pay@example.com',
      subject: 'Pago',
      currency: 'CLP',
      order: 'p-1',
      accountbank_name: 'Juan Pérez',
      accountbank_rut: '111111111',
      accountbank_sbif: '0001',
      accountbank_type: '1',
      accountbank_num: '123456',
    },
    minimum: 1,
    maximum: transactionLimits.amountIntegerMax,
  },
  {
    name: 'plan amount',
    url: '/api/suplan',
    field: 'amount',
    base: { name: 'Plan' },
    minimum: 1,
    maximum: transactionLimits.amountIntegerMax,
  },
  {
    name: 'event service_sale',
    url: '/api/event',
    field: 'service_sale',
    base: (({ service_sale: _, ...rest }) => rest)(eventBody('ev-forms', 'Forms')),
    minimum: 0,
    maximum: eventLimits.serviceSaleMinorMax,
  },
];

let t: TestApp;
let account: TestAccount;
/** What each request's handler was given, after the schema: the value the route acts on. */
const handed = new Map<string, unknown>();
let serial = 0;

beforeAll(async () => {
  t = await startTestApp({
    extraRoutes: (app) =>
      app.addHook('preHandler', (request: FastifyRequest, _reply, done) => {
        const probe = request.headers['x-probe'];
        if (typeof probe === 'string')
          handed.set(probe, { body: request.body, query: request.query });
        done();
      }),
  });
  account = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

/** The body as the server parses it (plain digits past 2^53 keep their text, decision 755), to sign it. */
function parsedAsServer(rawJson: string): Record<string, unknown> {
  const keepDigits = (_key: string, value: unknown, context?: { source?: string }) =>
    typeof value === 'number' &&
    !Number.isSafeInteger(value) &&
    /^-?[0-9]+$/.test(context?.source ?? '')
      ? context?.source
      : value;
  return JSON.parse(rawJson, keepDigits as (key: string, value: unknown) => unknown);
}

interface Answer {
  readonly status: number;
  /** `accepted <value handed on>` or `400 <field>:<problem>` or the unexpected body. */
  readonly summary: string;
}

function summarise(
  res: { statusCode: number; json(): any; body: string },
  field: string,
  handedValue: unknown,
  reached: boolean,
): Answer {
  if (res.statusCode === 400) {
    const body = res.json();
    const problem = body.errors?.[field];
    const shaped =
      body.status === 'failed' &&
      body.type === 'Unprocessable Entity' &&
      typeof problem === 'string' &&
      String(body.message_error).includes(`${field}:${problem}`);
    return { status: 400, summary: shaped ? `400 ${field}:${problem}` : `400 ${res.body}` };
  }
  if (reached)
    return { status: res.statusCode, summary: `accepted ${JSON.stringify(handedValue)}` };
  return { status: res.statusCode, summary: `${res.statusCode} ${res.body}` };
}

function expected(form: Form, field: string, minimum: number, maximum: number): string {
  if (form.means === null) return `400 ${field}:`;
  if (form.means < minimum) return `400 ${field}:too small`;
  if (form.means > maximum) return `400 ${field}:too large`;
  return `accepted ${form.means}`;
}

/** Accepted with the exact integer, or refused naming the field (any problem where none is meant). */
function check(answer: Answer, want: string, label: string): void {
  if (want.endsWith(':')) expect(answer.summary, label).toMatch(new RegExp(`^${want}[a-z ]+$`));
  else expect(answer.summary, label).toBe(want);
}

async function sendBody(target: Target, literal: string): Promise<Answer> {
  serial += 1;
  const probe = `p${serial}`;
  // A fresh order (event code) each time, so that no accepted form meets a duplicate.
  const fresh: Record<string, string> = {};
  if ('order' in target.base) fresh.order = `f-${serial}`;
  if ('event' in target.base) fresh.event = `ev-${serial}`;
  const base = { ...target.base, ...fresh, [target.field]: '__literal__' };
  const raw = JSON.stringify(base).replace('"__literal__"', literal);
  const res = await t.app.inject({
    method: 'POST',
    url: target.url,
    headers: {
      accept: 'application/json',
      'content-type': 'application/json',
      authorization: `Bearer ${account.publicToken}`,
      sign: computeSign(account.privateToken, target.url, parsedAsServer(raw)),
      'x-probe': probe,
    },
    payload: raw,
  });
  const seen = handed.get(probe) as { body: Record<string, unknown> } | undefined;
  return summarise(res, target.field, seen?.body[target.field], seen !== undefined);
}

async function sendQuery(field: string, text: string): Promise<Answer> {
  serial += 1;
  const probe = `p${serial}`;
  const res = await t.call(account, {
    method: 'GET',
    url: `/api/wallet/list?${field}=${encodeURIComponent(text)}`,
    sign: true,
    headers: { 'x-probe': probe },
  });
  const seen = handed.get(probe) as { query: Record<string, unknown> } | undefined;
  return summarise(res, field, seen?.query[field], seen !== undefined);
}

describe('integer forms over every route (decision 1160)', () => {
  for (const target of targets) {
    it(`${target.name}: each form is the integer meant or a 400 naming the field`, async () => {
      const table: string[] = [];
      for (const form of forms) {
        const answer = await sendBody(target, form.literal);
        table.push(`${form.literal} -> ${answer.summary}`);
        expect(answer.status, `${form.literal}: ${answer.summary}`).toBeLessThan(500);
      }
      if (process.env.PRINT_FORMS) console.log(`${target.name}\n${table.join('\n')}`);
      for (const [i, form] of forms.entries()) {
        const answer = table[i]!.slice(form.literal.length + 4);
        check(
          { status: 0, summary: answer },
          expected(form, target.field, target.minimum, target.maximum),
          `${target.name} ${form.literal}`,
        );
      }
    });
  }

  for (const field of ['page', 'per_page']) {
    it(`wallet list ${field}: each text is the integer meant or a 400 naming the field`, async () => {
      const table: string[] = [];
      for (const form of queryForms) {
        const answer = await sendQuery(field, form.literal);
        table.push(`${form.literal} -> ${answer.summary}`);
        expect(answer.status, `${form.literal}: ${answer.summary}`).toBeLessThan(500);
      }
      if (process.env.PRINT_FORMS) console.log(`wallet list ${field}\n${table.join('\n')}`);
      for (const [i, form] of queryForms.entries()) {
        const answer = table[i]!.slice(form.literal.length + 4);
        check(
          { status: 0, summary: answer },
          expected(form, field, 1, field === 'page' ? limits.walletPageMax : limits.pageSizeMax),
          `${field} ${form.literal}`,
        );
      }
    });
  }
});

describe('integerOfNumberText', () => {
  it('reads the exact integer of a number text by decimal arithmetic, not the double', () => {
    const cases: Array<[string, ReturnType<typeof integerOfNumberText>]> = [
      ['100', 100n],
      ['-0', 0n],
      ['0e5', 0n],
      ['0.000', 0n],
      ['123.4500e2', 12345n],
      ['1.2345e2', 'fraction'],
      ['1e-400', 'fraction'],
      ['100.00000000000000001', 'fraction'],
      ['9007199254740993.0', 9007199254740993n],
      ['-1.5e1', -15n],
      ['1e19', 10000000000000000000n],
      ['1e20', 'huge'],
      ['1e21', 'huge'],
      ['1e999999999999', 'huge'],
      ['0x64', null],
    ];
    for (const [text, want] of cases) expect(integerOfNumberText(text), text).toEqual(want);
  });
});
