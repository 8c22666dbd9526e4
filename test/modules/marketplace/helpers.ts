// Shared request bodies for the marketplace tests: the reference's own samples (reference §4).
import type { TestAccount, TestApp } from '../../support/app.ts';

export const sampleClient = {
  email: 'johndoe@example.com',
  name: 'John Doe',
  phone: '923122312',
  bank: { sbif: '0001', type: '1', num: '12312313121', rut: '111111111' },
};

export async function createClient(
  t: TestApp,
  account: TestAccount,
  overrides: Record<string, unknown> = {},
): Promise<string> {
  const res = await t.call(account, {
    method: 'POST',
    url: '/api/maclient',
    body: { ...sampleClient, ...overrides },
  });
  if (res.statusCode !== 200) throw new Error(`client create failed: ${res.body}`);
  return res.json().id as string;
}

export async function createMembership(
  t: TestApp,
  account: TestAccount,
  percentage: string,
  pairs: Array<[string, string | number]>,
) {
  const res = await t.call(account, {
    method: 'POST',
    url: '/api/maaffiliation',
    body: { name: 'market1', percentage, affiliation: pairs },
  });
  if (res.statusCode !== 200 || res.json().status !== 'register')
    throw new Error(`membership create failed: ${res.body}`);
  return res.json() as { id: string; token: string };
}
