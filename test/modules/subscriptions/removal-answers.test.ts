// How a failed Oneclick inscription delete is read (decisions 1105, 1210), on the errors the real `transbank-sdk`
// throws against the local simulator: a timeout, a lost answer and a request that never reached Transbank (its port
// closed, its name unknown) are busy (the delete is safe to send again: Transbank answers 404 for an inscription
// already deleted, read as gone); a refusal Transbank answers is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startOneclickSimulator,
  type OneclickSimulator,
} from '../../support/oneclick-simulator.ts';
import { oneclickMall } from '../../../src/platform/processors/oneclick-mall.ts';
import { removalFailureKind } from '../../../src/modules/subscriptions/removal-answers.ts';
import { freePort } from '../../support/net.ts';

let sim: OneclickSimulator;
beforeAll(async () => {
  sim = await startOneclickSimulator();
});
afterAll(async () => {
  await sim?.close();
});

const keys = (environmentUrl: string) => ({
  commerceCode: sim.commerceCode,
  childCommerceCode: sim.childCommerceCode,
  apiKey: sim.apiKey,
  environmentUrl,
});

/** The error the SDK throws for a delete of an unknown inscription with `timeoutMs`. */
async function deleteError(environmentUrl: string, timeoutMs = 10_000): Promise<Error> {
  const error: unknown = await oneclickMall(keys(environmentUrl), timeoutMs)
    .remove('tbk-unknown', 'someone')
    .then(
      () => null,
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

describe('a failed inscription delete', () => {
  it('answered 404 (an inscription already deleted) is gone', async () => {
    expect(removalFailureKind(await deleteError(sim.url))).toBe('gone');
  });

  it.each([
    [429, 'busy'],
    [500, 'busy'],
    [503, 'busy'],
    [401, 'refused'],
    [422, 'refused'],
  ] as const)('answered %i is %s', async (status, kind) => {
    sim.deleteFailures = 1;
    sim.deleteFailureStatus = status;
    try {
      expect(removalFailureKind(await deleteError(sim.url))).toBe(kind);
    } finally {
      sim.deleteFailures = 0;
      sim.deleteFailureStatus = 500;
    }
  });

  it('that timed out (Transbank holding it past the client timeout) is busy', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    sim.whileDeleting = () => held;
    try {
      const error = await deleteError(sim.url, 50);
      expect(error.message).toMatch(/timeout/);
      expect(removalFailureKind(error)).toBe('busy');
    } finally {
      release();
    }
  });

  it('whose connection was dropped with no answer is busy', async () => {
    sim.deleteFailures = 0;
    sim.users.set('tbk-dropped', 'someone');
    sim.deleteFault = 'reset';
    const error: unknown = await oneclickMall(keys(sim.url), 10_000)
      .remove('tbk-dropped', 'someone')
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(Error);
    expect(removalFailureKind(error)).toBe('busy');
  });

  // Decision 1210: Transbank did not answer, so it did not refuse; its host down looks the same as a wrong address.
  it('to a port nothing listens on (the connection refused) is busy', async () => {
    const error = await deleteError(`http://127.0.0.1:${await freePort()}`);
    expect(error.message).toMatch(/ECONNREFUSED/);
    expect(removalFailureKind(error)).toBe('busy');
  });

  it('to a host whose name is unknown (ENOTFOUND, or EAI_AGAIN with no name server) is busy', async () => {
    const error = await deleteError('http://oneclick.invalid');
    expect(error.message).toMatch(/ENOTFOUND|EAI_AGAIN/);
    expect(removalFailureKind(error)).toBe('busy');
  });

  it.each([
    ['getaddrinfo EAI_AGAIN webpay3g.transbank.cl', 'EAI_AGAIN', 'busy'],
    ['read ECONNRESET', 'ECONNRESET', 'busy'],
    [
      'Client network socket disconnected before secure TLS connection was established',
      'ECONNRESET',
      'busy',
    ],
    ['connect ETIMEDOUT 200.10.12.1:443', 'ETIMEDOUT', 'busy'],
    ['self-signed certificate', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'refused'],
  ] as const)(
    'that failed as Node writes "%s" (%s, the SDK keeps only the text) is %s',
    async (text, code, kind) => {
      // What the SDK (dist/es5, the build Node loads) throws for an axios error with no response: its TransbankError
      // is an Error named so, holding the text only; shaped like the one it threw for a closed port.
      const thrown = await deleteError(`http://127.0.0.1:${await freePort()}`);
      const axiosError = Object.assign(new Error(text), { code });
      const error = Object.assign(new Error(`${axiosError}\nUnexpected error\n`), {
        name: 'TransbankError',
      });
      expect(Object.keys(error)).toEqual(Object.keys(thrown));
      expect(thrown.message).toMatch(/^Error: connect ECONNREFUSED [^\n]+\nUnexpected error\n$/);
      expect(error).not.toHaveProperty('code');
      expect(removalFailureKind(error)).toBe(kind);
    },
  );
});
