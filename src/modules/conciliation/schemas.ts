// TypeBox schemas of POST /api/conciliation (seed "Conciliation"; reference §10.1 for the answer's shape).
import { Type } from 'typebox';
import { limits } from '../../limits/index.ts';
import { exactInteger, literalUnion } from '../../platform/http/schemas.ts';
import { batchStatuses } from './report.ts';

const Day = (description: string) =>
  Type.String({ maxLength: limits.dateTextLengthMax, description });

export const ConciliationBody = Type.Object({
  date_init: Day(
    'First day of the range (YYYY-MM-DD, service time zone); not after today nor after date_end',
  ),
  date_end: Day(
    'Last day of the range (YYYY-MM-DD); not after today, at most 30 days after date_init',
  ),
});

const Amount = Type.Integer({ minimum: 0 });

const ConciliationLine = Type.Object({
  transaction_id: Type.String({
    description: "The transaction's id (trx...), as GET /api/transaction/{id} takes it",
  }),
  payment_key: Type.String(),
  order: Type.String(),
  start: Type.String({ description: 'When the payer opened the checkout (YYYY-MM-DD HH:MM:SS)' }),
  end: Type.String({ description: 'When the payment ended' }),
  deposit_date: Type.String({
    description:
      "The day the net was settled, into the wallet or an escrow account's hold (YYYY-MM-DD)",
  }),
  amount: Amount,
  fee: Amount,
  amount_deposit: Type.Integer({
    minimum: 0,
    description:
      "What this settlement put in the wallet (or an escrow account's hold): amount - fee, less a marketplace's clients' or an event's beneficiaries' shares",
  }),
  media: Type.String(),
});

const ConciliationBatch = Type.Object({
  id: Type.String({ description: 'Settlement batch id (stb...)' }),
  created_at: Type.String(),
  amount_available: exactInteger({
    minimum: 0,
    description: "What the batch settled for the merchant: the sum of its lines' amount_deposit",
  }),
  amount_deposit: exactInteger({
    minimum: 0,
    description:
      "What of it reached the wallet: settled there, or released from an escrow account's hold",
  }),
  status: literalUnion(batchStatuses, {
    description: "`paid_out`, or `deteined` while an escrow account's hold keeps any of it",
  }),
  destiny: Type.String({ description: '`wallet`, or `escrow` while held' }),
  currency: Type.String(),
  wallet: Type.Null(),
  transaction: Type.Array(ConciliationLine),
});

export const ConciliationResponse = Type.Object({
  status: Type.Literal('success'),
  conciliation: Type.Array(ConciliationBatch),
});

export const ConciliationCsv = Type.String({
  description:
    "text/csv; charset=utf-8 with a byte order mark: a header row, then one row per settled transaction with its batch's columns repeated",
});
