// Which failures of a group statement fall back to running each row alone (decision 430): one row's data, its
// constraints, a trigger refusing it, a business refusal, and an answer lost on the connection; nothing else.
import { AssertionError } from 'node:assert';
import { describe, expect, it } from 'vitest';
import { isRowFailure } from '../../../src/platform/db/row-failure.ts';
import { ApiError } from '../../../src/platform/errors/errors.ts';

const sqlError = (code: string) => Object.assign(new Error(`sqlstate ${code}`), { code });

describe('isRowFailure', () => {
  it.each(['23505', '23503', '23514', '22001', '22003', 'P0001', '08006', '08003'])(
    'runs each row alone after %s',
    (code) => {
      expect(isRowFailure(sqlError(code))).toBe(true);
    },
  );

  it('runs each row alone after a business refusal', () => {
    expect(isRowFailure(new ApiError('validation_failed', 'refused'))).toBe(true);
  });

  it.each([
    ['an assertion', new AssertionError({ message: 'a journal that does not balance' })],
    ['a plain error', new Error('a bug')],
    ['a type error', new TypeError('undefined is not a function')],
    ['a deadlock', sqlError('40P01')],
    ['a serialization failure', sqlError('40001')],
    ['the server shutting down', sqlError('57P01')],
    ['a syntax error', sqlError('42601')],
    ['a node error code', Object.assign(new Error('gone'), { code: 'ECONNRESET' })],
    ['a thrown string', 'oops'],
    ['null', null],
  ])('fails the whole group after %s', (_name, error) => {
    expect(isRowFailure(error)).toBe(false);
  });
});
