// Public surface of the typed Cobro client (docs/client.md).
export { CobroClient, type CobroClientOptions } from './client.ts';
export {
  CobroClientError,
  isFailed,
  type CobroClientErrorKind,
  type FailedBody,
} from './errors.ts';
export { operations, type OperationName, type OperationSpec } from './operations.ts';
export type { CallOptions } from './transport.ts';
export type * from './types.ts';
export { canonicalString, computeSign, type SignParams } from './sign.ts';
