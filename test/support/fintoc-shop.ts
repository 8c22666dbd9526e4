// A production account paid through the Fintoc simulator, set up as an operator does (`cobro accounts
// set-processor`): bank-transfer payments, and with `payouts` also a JWS key and a Fintoc account, so its CLP payouts
// leave as Fintoc transfers, its wallet funded with `fundMinor` by `cobro wallet credit`.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { dispatch } from '../../src/cli/dispatch.ts';
import type { TestAccount, TestApp } from './app.ts';
import type { FintocSimulator } from './fintoc-simulator.ts';

export async function fintocShop(
  t: TestApp,
  sim: FintocSimulator,
  name: string,
  options: { readonly payouts?: { readonly fundMinor: number } } = {},
): Promise<{ readonly shop: TestAccount; readonly setOutput: string }> {
  const shop = await t.createAccount(name);
  const payoutArgs: string[] = [];
  if (options.payouts !== undefined) {
    const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
    const keyFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fintoc-')), 'jws.pem');
    fs.writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
    payoutArgs.push('--fintoc-jws-key-file', keyFile, '--fintoc-account', 'acc_sim1');
  }
  const set = await dispatch(
    [
      'accounts',
      'set-processor',
      shop.id,
      '--fintoc-secret-key',
      sim.secretKey,
      '--fintoc-webhook-secret',
      sim.webhookSecret,
      ...payoutArgs,
      '--environment',
      sim.url,
    ],
    t.ctx,
  );
  expect(set.exitCode, set.stderr).toBe(0);
  if (options.payouts !== undefined) {
    const credit = await dispatch(
      [
        'wallet',
        'credit',
        '--account',
        shop.id,
        '--amount',
        String(options.payouts.fundMinor),
        '--reason',
        'funding',
      ],
      t.ctx,
    );
    expect(credit.exitCode, credit.stderr).toBe(0);
  }
  return { shop, setOutput: set.stdout };
}
