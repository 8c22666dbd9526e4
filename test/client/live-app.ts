// A test app listening on 127.0.0.1 (the client talks real HTTP to it) and a client for one of its accounts.
import type { AddressInfo } from 'node:net';
import { CobroClient, type CobroClientOptions } from '../../packages/client/src/index.ts';
import {
  startTestApp,
  type TestAccount,
  type TestApp,
  type TestAppOptions,
} from '../support/app.ts';

export interface LiveApp {
  readonly t: TestApp;
  readonly baseUrl: string;
  clientFor(account: TestAccount, overrides?: Partial<CobroClientOptions>): CobroClient;
  close(): Promise<void>;
}

export async function startLiveApp(options: TestAppOptions = {}): Promise<LiveApp> {
  const t = await startTestApp(options);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    t,
    baseUrl,
    clientFor(account, overrides = {}) {
      // The app runs on a manual clock; the client's Cobro-Signature timestamps follow it.
      return new CobroClient({
        baseUrl,
        publicToken: account.publicToken,
        privateToken: account.privateToken,
        now: () => t.clock.now(),
        ...overrides,
      });
    },
    close: () => t.close(),
  };
}
