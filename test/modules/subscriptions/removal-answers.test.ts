// How a failed Oneclick inscription delete is read (decision 1105), on the errors the real `transbank-sdk` throws
// against the local simulator: a timeout and a lost answer are busy (the delete is safe to send again: Transbank
// answers 404 for an inscription already deleted, read as gone), a refusal or a host that never answered is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startOneclickSimulator,
  type OneclickSimulator,
} from '../../support/oneclick-simulator.ts';
import { oneclickMall } from '../../../src/platform/processors/oneclick-mall.ts';
import { removalFailureKind } from '../../../src/modules/subscriptions/removal-answers.ts';

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

/** The message of the error the SDK throws for a delete of an unknown inscription with `timeoutMs`. */
async function deleteError(environmentUrl: string, timeoutMs = 10_000): Promise<string> {
  const error: unknown = await oneclickMall(keys(environmentUrl), timeoutMs)
    .remove('tbk-unknown', 'someone')
    .then(
      () => null,
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(Error);
  return (error as Error).message;
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
      const message = await deleteError(sim.url, 50);
      expect(message).toMatch(/timeout/);
      expect(removalFailureKind(message)).toBe('busy');
    } finally {
      release();
    }
  });

  it('whose connection was dropped with no answer is busy', async () => {
    sim.deleteFailures = 0;
    sim.users.set('tbk-dropped', 'someone');
    sim.deleteFault = 'reset';
    const message = await oneclickMall(keys(sim.url), 10_000)
      .remove('tbk-dropped', 'someone')
      .then(
        () => '',
        (e: unknown) => (e as Error).message,
      );
    expect(removalFailureKind(message)).toBe('busy');
  });

  it('to a host that refuses the connection (a wrong environment URL) is refused', async () => {
    const message = await deleteError('http://127.0.0.1:1');
    expect(message).toMatch(/ECONNREFUSED/);
    expect(removalFailureKind(message)).toBe('refused');
  });
});
