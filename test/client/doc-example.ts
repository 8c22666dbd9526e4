import { CobroClient, isFailed } from '../../packages/client/src/index.ts';

const cobro = new CobroClient({
  baseUrl: process.env.COBRO_BASE_URL ?? 'http://127.0.0.1:8080',
  publicToken: process.env.COBRO_PUBLIC_TOKEN ?? '',
  privateToken: process.env.COBRO_PRIVATE_TOKEN ?? '',
  timeoutMs: 10_000,
});

// Sandbox only: put test money in the wallet.
await cobro.creditSandboxWallet({ amount: 5000, currency: 'CLP' });

const created = await cobro.createPayout(
  {
    email: 'johndoe@example.com',
    subject: 'Refund order 1001',
    currency: 'CLP',
    order: '1001',
    amount: 1000,
    accountbank_name: 'John Doe',
    accountbank_rut: '111111111',
    accountbank_sbif: '0001',
    accountbank_type: '1',
    accountbank_num: '12312312312',
  },
  { idempotencyKey: 'payout-order-1001' },
);

// HTTP 200 can still say `status: "failed"` (e.g. insufficient_funds), so check the body, not only the status.
if (isFailed(created.body)) {
  console.error(`payout refused (HTTP ${created.httpStatus}): ${created.body.message_error}`);
  process.exit(1);
}

const found = await cobro.getPayout(created.body.identifier_payout);
if (!isFailed(found.body))
  console.log(`payout ${found.body.payout.id}: ${found.body.payout.status}`);
