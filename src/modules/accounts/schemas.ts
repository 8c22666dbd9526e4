import { Type } from 'typebox';

export const AccountResponse = Type.Object({
  status: Type.Literal('success'),
  id: Type.String(),
  name: Type.String(),
  mode: Type.String(),
});
