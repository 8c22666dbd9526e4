// Every API operation the client calls, as `METHOD path` with OpenAPI `{param}` placeholders and the route's auth
// mode. test/client/client-coverage.test.ts compares this table with GET /api/openapi.json, so a route without a
// client method (or a signed route the client would not sign) fails the suite.

type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';
/** Mirrors the routes' `config.auth`: `sign` routes get a `Sign` header, `none` routes no credentials at all. */
export type AuthMode = 'none' | 'token' | 'sign';

export interface OperationSpec {
  readonly method: HttpMethod;
  readonly path: `/api/${string}`;
  readonly auth: AuthMode;
  /** Set when a 200 answer is not JSON: the body is returned as text (errors are still JSON). */
  readonly answers?: 'csv';
}

export const operations = {
  listBanks: { method: 'GET', path: '/api/banks', auth: 'none' },
  listPaymentMethods: { method: 'GET', path: '/api/paymentmethods', auth: 'none' },
  getAccount: { method: 'GET', path: '/api/account', auth: 'sign' },

  createTransaction: { method: 'POST', path: '/api/transaction', auth: 'token' },
  getTransaction: { method: 'GET', path: '/api/transaction/{id}', auth: 'token' },
  listTransactions: { method: 'GET', path: '/api/transaction', auth: 'token' },

  getWallet: { method: 'GET', path: '/api/wallet', auth: 'sign' },
  listWallet: { method: 'GET', path: '/api/wallet/list', auth: 'sign' },
  getWalletMovement: { method: 'GET', path: '/api/wallet/{id}', auth: 'sign' },
  createPayout: { method: 'POST', path: '/api/wallet/payout', auth: 'sign' },
  withdraw: { method: 'POST', path: '/api/wallet/withdraw', auth: 'sign' },
  getPayout: { method: 'GET', path: '/api/payout/{id}', auth: 'sign' },
  getPayoutV3: { method: 'GET', path: '/api/payoutv3/{id}', auth: 'sign' },

  releaseEscrow: { method: 'POST', path: '/api/escrow', auth: 'token' },

  createNullification: { method: 'POST', path: '/api/nullification', auth: 'sign' },
  getNullification: { method: 'GET', path: '/api/nullification/{id}', auth: 'sign' },

  createMarketplaceClient: { method: 'POST', path: '/api/maclient', auth: 'token' },
  getMarketplaceClient: { method: 'GET', path: '/api/maclient/{id}', auth: 'token' },
  updateMarketplaceClient: { method: 'PUT', path: '/api/maclient/{id}', auth: 'sign' },
  deleteMarketplaceClient: { method: 'DELETE', path: '/api/maclient/{id}', auth: 'token' },
  createMembership: { method: 'POST', path: '/api/maaffiliation', auth: 'token' },
  getMembership: { method: 'GET', path: '/api/maaffiliation/{id}', auth: 'token' },
  deleteMembership: { method: 'DELETE', path: '/api/maaffiliation/{id}', auth: 'token' },

  createEvent: { method: 'POST', path: '/api/event', auth: 'token' },
  getEvent: { method: 'GET', path: '/api/event/{id}', auth: 'token' },

  listNotifications: { method: 'GET', path: '/api/notifications', auth: 'token' },
  getNotification: { method: 'GET', path: '/api/notifications/{id}', auth: 'token' },
  retryNotification: { method: 'POST', path: '/api/notifications/{id}/retry', auth: 'token' },

  createSubscriptionClient: { method: 'POST', path: '/api/suclient', auth: 'sign' },
  listSubscriptionCustomers: { method: 'GET', path: '/api/suclient/customers', auth: 'sign' },
  getSubscriptionClient: { method: 'GET', path: '/api/suclient/{id}', auth: 'sign' },
  updateSubscriptionClient: { method: 'PUT', path: '/api/suclient/{id}', auth: 'sign' },
  deleteSubscriptionClient: { method: 'DELETE', path: '/api/suclient/{id}', auth: 'sign' },
  createPlan: { method: 'POST', path: '/api/suplan', auth: 'sign' },
  listPlans: { method: 'GET', path: '/api/suplan/plans', auth: 'sign' },
  getPlan: { method: 'GET', path: '/api/suplan/{id}', auth: 'sign' },
  createSubscription: { method: 'POST', path: '/api/sususcription', auth: 'sign' },
  listSubscriptions: { method: 'GET', path: '/api/sususcription', auth: 'sign' },
  listSubscriptionsV3: { method: 'GET', path: '/api/sususcriptionv3', auth: 'sign' },
  getSubscription: { method: 'GET', path: '/api/sususcription/{id}', auth: 'sign' },
  deleteSubscription: { method: 'DELETE', path: '/api/sususcription/{id}', auth: 'sign' },
  newSubscriptionCardLink: { method: 'POST', path: '/api/suinscriptionscards', auth: 'sign' },
  deleteSubscriptionCard: { method: 'POST', path: '/api/suscriptionsdeletecards', auth: 'sign' },
  chargeSubscription: { method: 'POST', path: '/api/sutransaction', auth: 'sign' },
  getConciliation: { method: 'POST', path: '/api/conciliation', auth: 'token' },
  exportConciliationCsv: {
    method: 'GET',
    path: '/api/conciliation.csv',
    auth: 'token',
    answers: 'csv',
  },
  createMall: { method: 'POST', path: '/api/mall', auth: 'sign' },
  getMall: { method: 'GET', path: '/api/mall/{id}', auth: 'sign' },
  listDisputes: { method: 'GET', path: '/api/disputes', auth: 'token' },
  getDispute: { method: 'GET', path: '/api/disputes/{id}', auth: 'token' },
  submitDisputeEvidence: { method: 'POST', path: '/api/disputes/{id}/evidence', auth: 'sign' },
  acceptDispute: { method: 'POST', path: '/api/disputes/{id}/accept', auth: 'sign' },

  advanceSandboxClock: { method: 'POST', path: '/api/sandbox/clock/advance', auth: 'token' },
  creditSandboxWallet: { method: 'POST', path: '/api/sandbox/wallet/credit', auth: 'token' },
  openSandboxDispute: { method: 'POST', path: '/api/sandbox/disputes', auth: 'token' },
  resolveSandboxDispute: {
    method: 'POST',
    path: '/api/sandbox/disputes/{id}/resolve',
    auth: 'token',
  },
} as const satisfies Record<string, OperationSpec>;

export type OperationName = keyof typeof operations;
