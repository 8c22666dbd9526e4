// `refusedByTransbank` (decisions 1225, 1245) on the text transbank-sdk 6.x throws: "<axios error>\n<Transbank's
// error_message>\n". A 4xx is a refusal; a 429 (ask later), a 5xx and no answer are not: the caller asks again.
import { describe, expect, it } from 'vitest';
import { refusedByTransbank } from '../../../src/platform/processors/transbank-failure.ts';

const answered = (status: number) =>
  new Error(`AxiosError: Request failed with status code ${status}\nsome words\n`);

describe('refusedByTransbank', () => {
  it.each([400, 401, 404, 422])('reads a %i answer as a refusal', (status) => {
    expect(refusedByTransbank(answered(status))).toBe(true);
  });

  it.each([429, 500, 502, 503])('reads a %i answer as no refusal', (status) => {
    expect(refusedByTransbank(answered(status))).toBe(false);
  });

  it('reads no answer as no refusal, and a named status only as itself', () => {
    expect(refusedByTransbank(new Error('Error: connect ECONNREFUSED 127.0.0.1:9\nx\n'))).toBe(
      false,
    );
    expect(refusedByTransbank(answered(404), 404)).toBe(true);
    expect(refusedByTransbank(answered(400), 404)).toBe(false);
  });
});
