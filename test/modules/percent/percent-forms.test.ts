// Every way a client writes a percentage, over every percentage a request gives (decision 1170): a membership's
// `[client_id, percentage]` pairs and an event's beneficiaries' `percent`. Money is split by them, so each answer
// is the exact two-decimal value written (shown back as the route's two-decimal text), or a 400 in the seed's shape
// naming the field; never a 500, never another value.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { createClient } from '../marketplace/helpers.ts';
import { eventBody } from '../refunds/helpers.ts';

/** The form as a JSON literal, and the percentage it means in hundredths (basis points), or the problem word. */
interface Form {
  readonly literal: string;
  readonly means: number | 'invalid' | 'too long' | 'is empty';
}

/**
 * The rule: a JSON number is the exact decimal its text writes (any spelling); a string is plain ASCII decimal
 * digits, surrounding blanks aside. Either is taken when written in at most 6 characters and its value is a whole
 * number of hundredths above 0 and at most 100.
 */
const forms: readonly Form[] = [
  { literal: '33.33', means: 3333 },
  { literal: '"33.33"', means: 3333 },
  { literal: '33.330', means: 3333 },
  { literal: '"33.330"', means: 3333 },
  { literal: '1e1', means: 1000 },
  { literal: '1E+1', means: 1000 },
  { literal: '5e-1', means: 50 },
  { literal: '1e-2', means: 1 },
  { literal: '"1e1"', means: 'invalid' },
  { literal: '3.333e1', means: 'too long' },
  { literal: '"3.333e1"', means: 'too long' },
  { literal: '33.333', means: 'invalid' },
  { literal: '"33.333"', means: 'invalid' },
  { literal: '"33.3333"', means: 'too long' },
  { literal: '33.3333', means: 'too long' },
  { literal: '33.33000000000000001', means: 'too long' },
  { literal: '33.32999999999999999', means: 'too long' },
  { literal: '0', means: 'invalid' },
  { literal: '"0"', means: 'invalid' },
  { literal: '-0', means: 'invalid' },
  { literal: '-1', means: 'invalid' },
  { literal: '"-1"', means: 'invalid' },
  { literal: '0.01', means: 1 },
  { literal: '0.5', means: 50 },
  { literal: '"0.5"', means: 50 },
  { literal: '".5"', means: 'invalid' },
  { literal: '"5."', means: 'invalid' },
  { literal: '10', means: 1000 },
  { literal: '"010"', means: 1000 },
  { literal: '100', means: 10_000 },
  { literal: '100.00', means: 10_000 },
  { literal: '"100.00"', means: 10_000 },
  { literal: '100.01', means: 'invalid' },
  { literal: '"100.01"', means: 'invalid' },
  { literal: '"１０"', means: 'invalid' },
  { literal: '" 10 "', means: 1000 },
  { literal: '"10,5"', means: 'invalid' },
  { literal: '"0x10"', means: 'invalid' },
  { literal: '1e400', means: 'invalid' },
  { literal: '1e-400', means: 'invalid' },
  { literal: '"NaN"', means: 'invalid' },
  { literal: '"Infinity"', means: 'too long' },
  { literal: '"inf"', means: 'invalid' },
  { literal: 'true', means: 'invalid' },
  { literal: '{}', means: 'invalid' },
  { literal: '[]', means: 'invalid' },
  { literal: 'null', means: 'is empty' },
  { literal: '""', means: 'is empty' },
  { literal: '"  "', means: 'is empty' },
];

let t: TestApp;
let account: TestAccount;
let clientId: string;
let serial = 0;

beforeAll(async () => {
  t = await startTestApp();
  account = await t.createAccount();
  clientId = await createClient(t, account, { name: 'Socio' });
});
afterAll(async () => {
  await t.close();
});

/** "33.33" from 3333: the two-decimal text both routes answer with. */
const twoDecimals = (bps: number) =>
  `${Math.floor(bps / 100)}.${String(bps % 100).padStart(2, '0')}`;

interface Target {
  readonly name: string;
  readonly field: string;
  /** Sends the form; the route's answer as `accepted <percent shown>` or `400 <field>:<problem>`. */
  send(literal: string, means: Form['means']): Promise<string>;
  /** Answers this field gives that differ from the forms' meaning (literal -> answer). */
  readonly otherwise?: Readonly<Record<string, string>>;
}

/**
 * The merchant's own `percentage` is a string field in the seed whose schema declares that a number there is read
 * from its text as written (decision 1180), so every form answers as in a pair, by the same reader. Two answers
 * differ by value, not by form: 0 is the merchant's to keep, and 100 leaves the one client nothing, which the sum
 * refuses.
 */
const sumOf150 = '400 percentage:with the affiliation percentages adds up to 150.00, not 100.00';
const merchantAnswers: Readonly<Record<string, string>> = {
  '0': 'accepted 0.00',
  '"0"': 'accepted 0.00',
  '-0': 'accepted 0.00',
  '100': sumOf150,
  '100.00': sumOf150,
  '"100.00"': sumOf150,
};

function summarise(
  res: { statusCode: number; json(): any; body: string },
  field: string,
  shown: (body: any) => unknown,
) {
  if (res.statusCode === 200) return `accepted ${String(shown(res.json()))}`;
  if (res.statusCode !== 400) return `${res.statusCode} ${res.body}`;
  const body = res.json();
  const problem = body.errors?.[field];
  const shaped =
    body.status === 'failed' &&
    typeof problem === 'string' &&
    String(body.message_error).includes(`${field}:${problem}`);
  return shaped ? `400 ${field}:${problem}` : `400 ${res.body}`;
}

const post = (url: string, raw: string) =>
  t.call(account, {
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json' },
    body: raw,
  });

const targets: readonly Target[] = [
  {
    name: 'membership pair percentage',
    field: 'affiliation.0.1',
    async send(literal, means) {
      serial += 1;
      // The merchant keeps the rest, so an accepted pair always adds up to 100.
      const merchant = typeof means === 'number' ? twoDecimals(10_000 - means) : '50';
      const raw = `{"name":"m${serial}","percentage":"${merchant}","affiliation":[["${clientId}",${literal}]]}`;
      const res = await post('/api/maaffiliation', raw);
      return summarise(res, this.field, (b) => b.affiliations?.[0]?.percentage);
    },
  },
  {
    name: "membership's own percentage",
    field: 'percentage',
    async send(literal, means) {
      serial += 1;
      // A typed string field (seed) whose number text the input guards hand to the reader (decision 1180).
      const meant = merchantAnswers[literal] === 'accepted 0.00' ? 0 : means;
      const pair = typeof meant === 'number' && meant < 10_000 ? twoDecimals(10_000 - meant) : '50';
      const raw = `{"name":"m${serial}","percentage":${literal},"affiliation":[["${clientId}","${pair}"]]}`;
      const res = await post('/api/maaffiliation', raw);
      return summarise(res, this.field, (b) => b.percentage);
    },
    otherwise: merchantAnswers,
  },
  {
    name: 'event beneficiary percent (pair)',
    field: 'affiliation.0.percent',
    async send(literal) {
      serial += 1;
      const base = { ...eventBody(`pf-${serial}`, 'Forms'), affiliation: '__literal__' };
      const raw = JSON.stringify(base).replace(
        '"__literal__"',
        `[["banda@example.com",${literal}]]`,
      );
      const res = await post('/api/event', raw);
      return summarise(res, this.field, (b) => b.affiliation?.[0]?.percent);
    },
  },
  {
    name: 'event beneficiary percent (object)',
    field: 'affiliation.0.percent',
    async send(literal) {
      serial += 1;
      const base = { ...eventBody(`pf-${serial}`, 'Forms'), affiliation: '__literal__' };
      const raw = JSON.stringify(base).replace(
        '"__literal__"',
        `[{"email":"banda@example.com","percent":${literal}}]`,
      );
      const res = await post('/api/event', raw);
      return summarise(res, this.field, (b) => b.affiliation?.[0]?.percent);
    },
  },
];

describe('percentage forms over every route (decision 1170)', () => {
  for (const target of targets) {
    it(`${target.name}: each form is the exact percentage written or a 400 naming the field`, async () => {
      const table: string[] = [];
      for (const form of forms)
        table.push(`${form.literal} -> ${await target.send(form.literal, form.means)}`);
      if (process.env.PRINT_FORMS) console.log(`${target.name}\n${table.join('\n')}`);
      for (const line of table) expect(line).not.toMatch(/ -> 5\d\d /);
      const want = forms.map(
        (f) =>
          `${f.literal} -> ${target.otherwise?.[f.literal] ?? (typeof f.means === 'number' ? `accepted ${twoDecimals(f.means)}` : `400 ${target.field}:${f.means}`)}`,
      );
      expect(table).toEqual(want);
    });
  }
});
