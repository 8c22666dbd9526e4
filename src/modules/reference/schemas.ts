import { Type } from 'typebox';
import { ErrorEnvelope } from '../../platform/http/schemas.ts';
import { limits } from '../../limits/index.ts';

export const CurrencyQuery = Type.Object({
  currency: Type.Optional(
    Type.String({
      maxLength: limits.currencyCodeLengthMax,
      description: 'Currency code, any case (clp, pen, ves).',
    }),
  ),
});

const Bank = Type.Object({ code: Type.String(), name: Type.String(), currency: Type.String() });
const PaymentMethod = Type.Object({
  currency: Type.String(),
  payment: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
});

export const BanksResponse = {
  200: Type.Object({ status: Type.Literal('success'), banks: Type.Array(Bank) }),
  400: ErrorEnvelope,
};
export const PaymentMethodsResponse = {
  200: Type.Object({ status: Type.Literal('success'), payment_methods: Type.Array(PaymentMethod) }),
  400: ErrorEnvelope,
};
