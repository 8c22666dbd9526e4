// TypeBox schemas of POST /api/escrow (reference §2.1).
import { Type } from 'typebox';
import { RuleFailureBody } from '../../platform/http/schemas.ts';
import { escrowLimits } from '../../limits/index.ts';

export const EscrowBody = Type.Object(
  {
    transactions: Type.Array(Type.String({ minLength: 1, maxLength: escrowLimits.idLengthMax }), {
      minItems: 1,
      maxItems: escrowLimits.transactionsMax,
      description: 'Transaction ids whose held settlement to release',
      examples: [['trx3b4d77b43acd9a720', 'trx3b4d77b43acd9a385']],
    }),
  },
  { additionalProperties: false },
);

const Status = Type.Union(
  [
    Type.Literal('not found'),
    Type.Literal('pending'),
    Type.Literal('liquidate'),
    Type.Literal('pending for deposit'),
    Type.Literal('paid'),
  ],
  {
    description:
      'not found: unknown or not paid; pending: before its availability date, nothing released; liquidate: its money is in the wallet',
  },
);

const EscrowItem = Type.Object({
  status: Status,
  transaction_id: Type.String({ description: 'Echoes the id asked for' }),
  amount: Type.Integer({ description: "The transaction's total amount; 0 when not found" }),
  availability_date: Type.String({
    description: 'YYYY-MM-DD: from this date it may be released; N/D when not found',
  }),
  deposit_date: Type.String({
    description: 'YYYY-MM-DD: when its money reached the wallet; N/D until then',
  }),
});

const EscrowReleased = Type.Object(
  { transactions: Type.Array(EscrowItem) },
  {
    examples: [
      {
        transactions: [
          {
            status: 'liquidate',
            transaction_id: 'trx3b4d77b43acd9a720',
            amount: 15000,
            availability_date: '2021-07-01',
            deposit_date: '2021-07-06',
          },
          {
            status: 'pending',
            transaction_id: 'trx3b4d77b43bdd9a540',
            amount: 20000,
            availability_date: '2021-07-25',
            deposit_date: 'N/D',
          },
        ],
      },
    ],
  },
);

export const EscrowResponse = Type.Union([EscrowReleased, RuleFailureBody]);
