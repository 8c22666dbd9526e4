// Shared request bodies for the subscription tests: the reference's own samples (reference §7.1, §8.2).
import type { TestAccount, TestApp } from '../../support/app.ts';

export const sampleClient = {
  email: 'johndoe@example.com', name: 'John Doe', rut: '11111111', phone: '923122312', address: 'Moneda 101',
  country: 'Chile', region: 'Metropolitana', city: 'Santiago', postal_code: '850000',
  additional_parameters: { parameter_1: 'example', parameter_2: 'example' },
};

export async function createSuClient(t: TestApp, account: TestAccount, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await t.call(account, { method: 'POST', url: '/api/suclient', sign: true, body: { ...sampleClient, ...overrides } });
  if (res.statusCode !== 200) throw new Error(`suclient create failed: ${res.body}`);
  return res.json().id as string;
}

export async function createPlan(t: TestApp, account: TestAccount, body: Record<string, unknown> = {}): Promise<string> {
  const res = await t.call(account, { method: 'POST', url: '/api/suplan', sign: true, body: { name: 'Test plan', ...body } });
  if (res.statusCode !== 200 || res.json().status !== 'success') throw new Error(`suplan create failed: ${res.body}`);
  return res.json().id as string;
}
