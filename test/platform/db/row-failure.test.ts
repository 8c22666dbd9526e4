// Which failures of a group statement fall back to running each row alone (decisions 430 and 630): one row's data,
// its constraints, a trigger refusing it, a business refusal (isRowFailure); and for the group's fallback
// (mayRunAlone) also the database not answering, however the driver words it, and a transaction PostgreSQL rolled
// back whole; nothing else.
import { AssertionError } from 'node:assert';
import { describe, expect, it } from 'vitest';
import { isRowFailure, mayRunAlone } from '../../../src/platform/db/row-failure.ts';
import { ApiError } from '../../../src/platform/errors/errors.ts';

const sqlError = (code: string) => Object.assign(new Error(`sqlstate ${code}`), { code });

const bugs: ReadonlyArray<readonly [string, unknown]> = [
  ['an assertion', new AssertionError({ message: 'a journal that does not balance' })],
  ['a plain error', new Error('a bug')],
  ['a type error', new TypeError('undefined is not a function')],
  ['a syntax error', sqlError('42601')],
  ['an undefined column', sqlError('42703')],
  ['a thrown string', 'oops'],
  ['null', null],
];

describe('isRowFailure', () => {
  it.each(['23505', '23503', '23514', '22001', '22003', 'P0001'])(
    'is a row failure after %s',
    (code) => {
      expect(isRowFailure(sqlError(code))).toBe(true);
    },
  );

  it('is a row failure after a business refusal', () => {
    expect(isRowFailure(new ApiError('validation_failed', 'refused'))).toBe(true);
  });

  it.each<readonly [string, unknown]>([
    ...bugs,
    ['a deadlock', sqlError('40P01')],
    ['a lost connection', sqlError('08006')],
    ['a node error code', Object.assign(new Error('gone'), { code: 'ECONNRESET' })],
  ])('is no row failure after %s', (_name, error) => {
    expect(isRowFailure(error)).toBe(false);
  });
});

describe('mayRunAlone', () => {
  it.each<readonly [string, unknown]>([
    ['a taken key', sqlError('23505')],
    ['a trigger refusing a row', sqlError('P0001')],
    ['a business refusal', new ApiError('validation_failed', 'refused')],
    ['a connection exception', sqlError('08006')],
    // node-postgres's own words for a connection the server closed: no SQLSTATE.
    ['a connection node-postgres lost', new Error('Connection terminated unexpectedly')],
    ['a reset socket', Object.assign(new Error('gone'), { code: 'ECONNRESET' })],
    ['the server shutting down', sqlError('57P01')],
    ['a deadlock', sqlError('40P01')],
    ['a serialization failure', sqlError('40001')],
  ])('runs each request alone after %s', (_name, error) => {
    expect(mayRunAlone(error)).toBe(true);
  });

  it.each(bugs)('fails the whole group after %s', (_name, error) => {
    expect(mayRunAlone(error)).toBe(false);
  });
});
