import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  canonicalString,
  computeSign,
  signedPaths,
  verifySign,
} from '../../../src/platform/auth/sign.ts';

const key = 'fe551abcef62fcf002dc598922e68f0a';
const suclient = {
  email: 'johndoe@example.com',
  name: 'John Doe',
  phone: '923122312',
  address: 'Moneda 101',
  country: 'Chile',
  region: 'Metropolitana',
  city: 'Santiago',
  postal_code: '850000',
  additional_parameters: { parameter_1: 'example', parameter_2: 'example 2' },
};

describe('Sign (supplement §2.4 vectors)', () => {
  it('builds the documented canonical string and signature', () => {
    expect(canonicalString('/api/suclient', suclient)).toBe(
      '%2Fapi%2Fsuclient&address=Moneda+101&city=Santiago&country=Chile&email=johndoe%40example.com&name=John+Doe&phone=923122312&postal_code=850000&region=Metropolitana',
    );
    expect(computeSign(key, '/api/suclient', suclient)).toBe(
      'c9c86202b1246f6ebeb080d08b3b99a22d36d0e8cffb7fd4e65af0fea4dd12bb',
    );
  });

  it('matches the second supplement vector', () => {
    const body = {
      email: 'support@youwebsite.cl',
      name: 'Joe Doe',
      phone: '923122312',
      address: 'Moneda 101',
      country: 'Chile',
      region: 'Metropolitana',
      city: 'Santiago',
      postal_code: '850000',
    };
    expect(computeSign(key, '/api/suclient', body)).toBe(
      'd891663698d31aa8b68babe96ac6497f5a0d874024368102998d5b79a4d12c36',
    );
    expect(
      verifySign(
        key,
        '/api/suclient',
        body,
        'd891663698d31aa8b68babe96ac6497f5a0d874024368102998d5b79a4d12c36',
      ),
    ).toBe(true);
  });

  it('refuses the %20 encoding of spaces', () => {
    expect(
      verifySign(
        key,
        '/api/suclient',
        suclient,
        '9f8be422a3e4c04645c2ac97fd7a4d5cf2422884dbfe25d8cf674562427510f7',
      ),
    ).toBe(false);
  });

  it('verifies the reference extra vectors', () => {
    expect(
      computeSign(key, '/api/nullification', {
        id: 'trxpr2a45s1dytg1',
        amount: 25000,
        subject: 'anulación transacción',
      }),
    ).toBe('76982e6d8c93b45e1dc29f5a1032be213a02f1998bd412ee3ba7c116c7891aeb');
    expect(
      computeSign(key, '/api/wallet/withdraw', {
        amount: 1000,
        currency: 'CLP',
        order: '133222',
        subject: 'withdraw 133222',
      }),
    ).toBe('3ad64ab75fd70884ce4673b88d0cc019aaa5cc8f68925fb1295bdb91b5970b2d');
    const payout = {
      accountbank_name: 'Jhon Doe',
      accountbank_num: '12312312312',
      accountbank_rut: '111111111',
      accountbank_sbif: '0001',
      accountbank_type: '1',
      amount: 1000,
      currency: 'CLP',
      email: 'johndoe@example.com',
      order: '133222',
      phone: '123456789',
      subject: 'PayOut 133222',
      url_notify: 'https://www.youwebsite.com/urlnotify?orderClient=98745',
    };
    expect(computeSign(key, '/api/wallet/payout', payout)).toBe(
      'c5dec316fddfdcb3fc21c6ab25b7abe6f483a71bb3e065bdd80906d9dcc7af48',
    );
  });

  it('accepts both forms of a parameterless request and nothing else', () => {
    expect(
      verifySign(
        key,
        '/api/wallet',
        {},
        '4b673d0789f6acbccb2bbe04e7d222f4f84aebe2f1be17dd44d6b6565c7169f1',
      ),
    ).toBe(true);
    expect(
      verifySign(
        key,
        '/api/wallet',
        {},
        'ecafba6edf3e0b7d808a84ef412ab8cebdd95d2b9615c957fc6048b928943ce0',
      ),
    ).toBe(true);
    expect(
      verifySign(
        key,
        '/api/suclient/cl0be4c8e623c167bc8b777',
        {},
        'c64fffad24eea8a2145ede528ced58a814cf3bdf21a27d844beab94b6af1c524',
      ),
    ).toBe(true);
    expect(
      verifySign(
        key,
        '/api/suclient/cl0be4c8e623c167bc8b777',
        {},
        '774127b8721e786a49c1f88276049ed70208e528a9e10c1d85c30204f02148c2',
      ),
    ).toBe(true);
    expect(verifySign(key, '/api/wallet', {}, 'not-hex')).toBe(false);
  });

  it('drops objects, arrays and nulls and fails on any changed byte', () => {
    const good = computeSign(key, '/api/x', { a: '1', b: 2 });
    expect(verifySign(key, '/api/x', { a: '1', b: 2, c: null, d: [1], e: { f: 1 } }, good)).toBe(
      true,
    );
    expect(verifySign(key, '/api/x', { a: '1', b: 3 }, good)).toBe(false);
    const flipped = (good[0] === 'a' ? 'b' : 'a') + good.slice(1);
    expect(verifySign(key, '/api/x', { a: '1', b: 2 }, flipped)).toBe(false);
  });

  it('accepts a `*` signed as PHP writes it and as URLSearchParams does, a boolean as JS and as PHP, with a kept KeyObject too', () => {
    const hmac = (text: string) => crypto.createHmac('sha256', key).update(text).digest('hex');
    const keyObject = crypto.createSecretKey(Buffer.from(key, 'utf8'));
    const starred = { order: 'a*b', amount: 10 };
    for (const text of ['%2Fapi%2Fx&amount=10&order=a%2Ab', '%2Fapi%2Fx&amount=10&order=a*b']) {
      expect(verifySign(key, '/api/x', starred, hmac(text))).toBe(true);
      expect(verifySign(keyObject, '/api/x', starred, hmac(text))).toBe(true);
    }
    const flagged = { order: 'o', recurring: true, trial: false };
    for (const text of [
      '%2Fapi%2Fx&order=o&recurring=true&trial=false',
      '%2Fapi%2Fx&order=o&recurring=1&trial=',
    ]) {
      expect(verifySign(keyObject, '/api/x', flagged, hmac(text))).toBe(true);
    }
    // Neither variant is accepted where its value has nothing to vary.
    expect(
      verifySign(
        keyObject,
        '/api/x',
        { order: 'ab', amount: 10 },
        hmac('%2Fapi%2Fx&amount=10&order=a*b'),
      ),
    ).toBe(false);
    expect(
      verifySign(
        keyObject,
        '/api/x',
        { order: 'o', recurring: 'true' },
        hmac('%2Fapi%2Fx&order=o&recurring=1'),
      ),
    ).toBe(false);
  });
});

describe('signedPaths (supplement §2.3: the path as received or decoded)', () => {
  it('offers the decoded path, and the path as sent when it holds percent-escapes', () => {
    expect(signedPaths('/api/suclient/cl123?x=1')).toEqual(['/api/suclient/cl123']);
    expect(signedPaths('/api/suclient/a%40b.cl?page=1')).toEqual([
      '/api/suclient/a@b.cl',
      '/api/suclient/a%40b.cl',
    ]);
    const overSent = computeSign(key, '/api/suclient/a%40b.cl', {});
    expect(verifySign(key, signedPaths('/api/suclient/a%40b.cl'), {}, overSent)).toBe(true);
    expect(verifySign(key, '/api/suclient/a@b.cl', {}, overSent)).toBe(false);
  });
});
