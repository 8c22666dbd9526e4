// CobroClient: one method per API operation (operations.ts), typed from the route schemas (types.ts). Signing,
// headers and timeouts live in transport.ts; this file only maps arguments to paths, queries and bodies.
import { CobroClientError } from './errors.ts';
import { operations, type OperationName } from './operations.ts';
import {
  checkTimeoutMs,
  send,
  timeoutMsDefault,
  type CallOptions,
  type OperationCall,
  type TransportConfig,
} from './transport.ts';
import type * as T from './types.ts';

export interface CobroClientOptions {
  /** Where the API is served, e.g. `https://cobro.example.com` (no trailing `/api`). */
  readonly baseUrl: string;
  readonly publicToken: string;
  /** Key of the `Sign` header; never sent over the wire. */
  readonly privateToken: string;
  /** A fetch implementation (default: the global one, which Node 18+ and browsers have). */
  readonly fetch?: typeof fetch;
  /** Per-call time limit, request and body together (default 30 000). */
  readonly timeoutMs?: number;
  /**
   * The clock a Cobro-Signature's timestamp comes from (default: the system clock). The server refuses a timestamp
   * more than 5 minutes from its own clock, so only a test against a server with a fake clock needs this.
   */
  readonly now?: () => Date;
}

function requireText(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new CobroClientError('invalid_argument', `${what} must be a non-empty string`);
  return value;
}

function normalisedBaseUrl(raw: unknown): string {
  const text = requireText(raw, 'baseUrl');
  let url: URL;
  try {
    url = new URL(text);
  } catch (error) {
    throw new CobroClientError('invalid_argument', `baseUrl is not a URL: ${text}`, {
      cause: error,
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CobroClientError('invalid_argument', `baseUrl must be http or https: ${text}`);
  if (url.search !== '' || url.hash !== '')
    throw new CobroClientError(
      'invalid_argument',
      `baseUrl must not have a query or fragment: ${text}`,
    );
  return url.href.replace(/\/+$/, '');
}

export class CobroClient {
  readonly #config: TransportConfig;

  constructor(options: CobroClientOptions) {
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== 'function')
      throw new CobroClientError(
        'invalid_argument',
        'no fetch implementation: pass options.fetch (Node 18+ has a global fetch)',
      );
    this.#config = {
      baseUrl: normalisedBaseUrl(options.baseUrl),
      publicToken: requireText(options.publicToken, 'publicToken'),
      privateToken: requireText(options.privateToken, 'privateToken'),
      fetch: fetchImpl,
      timeoutMs: checkTimeoutMs(options.timeoutMs ?? timeoutMsDefault, 'timeoutMs'),
      now: options.now ?? (() => new Date()),
    };
  }

  #call<R>(name: OperationName, call: OperationCall): Promise<T.CobroResponse<R>> {
    return send<R>(this.#config, operations[name], call);
  }

  // Reference data (no credentials needed).
  listBanks(query: T.CurrencyFilter = {}, options?: CallOptions) {
    return this.#call<T.BanksBody>('listBanks', { query, options });
  }
  listPaymentMethods(query: T.CurrencyFilter = {}, options?: CallOptions) {
    return this.#call<T.PaymentMethodsBody>('listPaymentMethods', { query, options });
  }
  /** Which account the credentials belong to; signed, so it checks both tokens at once. */
  getAccount(options?: CallOptions) {
    return this.#call<T.AccountBody>('getAccount', { options });
  }

  // Transactions.
  createTransaction(body: T.CreateTransactionInput, options?: CallOptions) {
    return this.#call<T.TransactionCreatedBody>('createTransaction', { body, options });
  }
  /** By id, payment_key or transaction_key. */
  getTransaction(id: string, options?: CallOptions) {
    return this.#call<T.TransactionBody>('getTransaction', { params: { id }, options });
  }
  listTransactions(query: T.TransactionListFilter = {}, options?: CallOptions) {
    return this.#call<T.TransactionListBody>('listTransactions', { query, options });
  }

  // Wallet and payouts (all signed).
  getWallet(query: T.WalletFilter = {}, options?: CallOptions) {
    return this.#call<T.WalletBody>('getWallet', { query, options });
  }
  listWallet(query: T.WalletFilter = {}, options?: CallOptions) {
    return this.#call<T.WalletBody>('listWallet', { query, options });
  }
  getWalletMovement(id: string, options?: CallOptions) {
    return this.#call<T.WalletBody>('getWalletMovement', { params: { id }, options });
  }
  createPayout(body: T.CreatePayoutInput, options?: CallOptions) {
    return this.#call<T.PayoutCreatedBody>('createPayout', { body, options });
  }
  withdraw(body: T.WithdrawInput, options?: CallOptions) {
    return this.#call<T.WithdrawBodyResponse>('withdraw', { body, options });
  }
  getPayout(id: string, options?: CallOptions) {
    return this.#call<T.PayoutBody>('getPayout', { params: { id }, options });
  }
  getPayoutV3(id: string, options?: CallOptions) {
    return this.#call<T.PayoutV3Body>('getPayoutV3', { params: { id }, options });
  }

  // Escrow (Bearer only, as the reference's examples).
  /** Releases held sales of an escrow account to its wallet; one answer per id (`not found`, `pending`, `liquidate`, ...). */
  releaseEscrow(body: T.ReleaseEscrowInput, options?: CallOptions) {
    return this.#call<T.EscrowReleasedBody>('releaseEscrow', { body, options });
  }

  // Refunds (both signed).
  /** Refunds all or part of a paid card sale (`id` is the transaction's). */
  createNullification(body: T.CreateNullificationInput, options?: CallOptions) {
    return this.#call<T.NullificationCreatedBody>('createNullification', { body, options });
  }
  /** By a transaction id (its latest refund) or a refund's own id. */
  getNullification(id: string, options?: CallOptions) {
    return this.#call<T.NullificationBody>('getNullification', { params: { id }, options });
  }

  // Conciliation.
  /** The settlement batches created from date_init to date_end (YYYY-MM-DD, at most 30 days), with their transactions. */
  getConciliation(body: T.ConciliationInput, options?: CallOptions) {
    return this.#call<T.ConciliationReportBody>('getConciliation', { body, options });
  }
  /** The same report as CSV text (UTF-8 with BOM, `;` between fields, one row per transaction), for a spreadsheet. */
  exportConciliationCsv(query: T.ConciliationInput, options?: CallOptions) {
    return this.#call<string>('exportConciliationCsv', { query, options });
  }

  // Mall (signed): one payment for several stores.
  createMall(body: T.CreateMallInput, options?: CallOptions) {
    return this.#call<T.MallCreatedBody>('createMall', { body, options });
  }
  getMall(id: string, options?: CallOptions) {
    return this.#call<T.MallBody>('getMall', { params: { id }, options });
  }

  // Marketplace.
  createMarketplaceClient(body: T.CreateMarketplaceClientInput, options?: CallOptions) {
    return this.#call<T.MarketplaceClientBody>('createMarketplaceClient', { body, options });
  }
  getMarketplaceClient(id: string, options?: CallOptions) {
    return this.#call<T.MarketplaceClientBody>('getMarketplaceClient', { params: { id }, options });
  }
  updateMarketplaceClient(id: string, body: T.UpdateMarketplaceClientInput, options?: CallOptions) {
    return this.#call<T.MarketplaceClientUpdatedBody>('updateMarketplaceClient', {
      params: { id },
      body,
      options,
    });
  }
  deleteMarketplaceClient(id: string, options?: CallOptions) {
    return this.#call<T.SuspendedBody>('deleteMarketplaceClient', { params: { id }, options });
  }
  createMembership(body: T.CreateMembershipInput, options?: CallOptions) {
    return this.#call<T.MembershipCreatedBody>('createMembership', { body, options });
  }
  getMembership(id: string, options?: CallOptions) {
    return this.#call<T.MembershipBody>('getMembership', { params: { id }, options });
  }
  deleteMembership(id: string, options?: CallOptions) {
    return this.#call<T.SuspendedBody>('deleteMembership', { params: { id }, options });
  }

  // Events.
  createEvent(body: T.CreateEventInput, options?: CallOptions) {
    return this.#call<T.EventCreatedBody>('createEvent', { body, options });
  }
  /** By your event identifier (`event` in createEvent). */
  getEvent(id: string, options?: CallOptions) {
    return this.#call<T.EventBody>('getEvent', { params: { id }, options });
  }

  // Callback deliveries.
  listNotifications(query: T.NotificationListFilter = {}, options?: CallOptions) {
    return this.#call<T.NotificationListBody>('listNotifications', { query, options });
  }
  getNotification(id: string, options?: CallOptions) {
    return this.#call<T.NotificationBody>('getNotification', { params: { id }, options });
  }
  retryNotification(id: string, options?: CallOptions) {
    return this.#call<T.NotificationRetryBody>('retryNotification', { params: { id }, options });
  }

  // Subscriptions (reference §7, §8): clients by id or e-mail, and plans.
  createSubscriptionClient(body: T.CreateSubscriptionClientInput, options?: CallOptions) {
    return this.#call<T.SubscriptionClientCreatedBody>('createSubscriptionClient', {
      body,
      options,
    });
  }
  listSubscriptionCustomers(query: T.SubscriptionCustomersFilter = {}, options?: CallOptions) {
    return this.#call<T.SubscriptionCustomersBody>('listSubscriptionCustomers', { query, options });
  }
  getSubscriptionClient(idOrEmail: string, options?: CallOptions) {
    return this.#call<T.SubscriptionClientBody>('getSubscriptionClient', {
      params: { id: idOrEmail },
      options,
    });
  }
  updateSubscriptionClient(
    idOrEmail: string,
    body: T.UpdateSubscriptionClientInput,
    options?: CallOptions,
  ) {
    return this.#call<T.SubscriptionClientUpdatedBody>('updateSubscriptionClient', {
      params: { id: idOrEmail },
      body,
      options,
    });
  }
  deleteSubscriptionClient(idOrEmail: string, options?: CallOptions) {
    return this.#call<T.SubscriptionDeletedBody>('deleteSubscriptionClient', {
      params: { id: idOrEmail },
      options,
    });
  }
  createPlan(body: T.CreatePlanInput, options?: CallOptions) {
    return this.#call<T.PlanCreatedBody>('createPlan', { body, options });
  }
  listPlans(options?: CallOptions) {
    return this.#call<T.PlansBody>('listPlans', { options });
  }
  getPlan(id: string, options?: CallOptions) {
    return this.#call<T.PlanBody>('getPlan', { params: { id }, options });
  }
  /** `url` in the answer is the hosted page where the payer enrols a card. */
  createSubscription(body: T.CreateSubscriptionInput, options?: CallOptions) {
    return this.#call<T.SubscriptionCreatedBody>('createSubscription', { body, options });
  }
  listSubscriptions(query: T.SubscriptionListFilter = {}, options?: CallOptions) {
    return this.#call<T.SubscriptionListBody>('listSubscriptions', { query, options });
  }
  listSubscriptionsV3(query: T.SubscriptionListFilter = {}, options?: CallOptions) {
    return this.#call<T.SubscriptionListV3Body>('listSubscriptionsV3', { query, options });
  }
  getSubscription(id: string, options?: CallOptions) {
    return this.#call<T.SubscriptionBody>('getSubscription', { params: { id }, options });
  }
  deleteSubscription(id: string, options?: CallOptions) {
    return this.#call<T.SubscriptionEndedBody>('deleteSubscription', { params: { id }, options });
  }
  /** A new hosted page where the payer adds or replaces the subscription's card. */
  newSubscriptionCardLink(body: T.SubscriptionCardLinkInput, options?: CallOptions) {
    return this.#call<T.SubscriptionCardLinkBody>('newSubscriptionCardLink', { body, options });
  }
  deleteSubscriptionCard(body: T.SubscriptionCardDeleteInput, options?: CallOptions) {
    return this.#call<T.SubscriptionCardDeletedBody>('deleteSubscriptionCard', { body, options });
  }
  /** A consumption charge on the stored card; send an `order` (or an Idempotency-Key) so a retry charges once. */
  chargeSubscription(body: T.SubscriptionChargeInput, options?: CallOptions) {
    return this.#call<T.SubscriptionChargeBody>('chargeSubscription', { body, options });
  }

  // Disputes (chargebacks): the amount held until the acquirer decides; answer before `respond_by`.
  listDisputes(query: T.DisputeListFilter = {}, options?: CallOptions) {
    return this.#call<T.DisputeListBody>('listDisputes', { query, options });
  }
  getDispute(id: string, options?: CallOptions) {
    return this.#call<T.DisputeBody>('getDispute', { params: { id }, options });
  }
  submitDisputeEvidence(id: string, body: T.DisputeEvidenceInput, options?: CallOptions) {
    return this.#call<T.DisputeChangedBody>('submitDisputeEvidence', {
      params: { id },
      body,
      options,
    });
  }
  /** Concedes the dispute: its money goes to the acquirer, as for a lost one. */
  acceptDispute(id: string, options?: CallOptions) {
    return this.#call<T.DisputeChangedBody>('acceptDispute', { params: { id }, options });
  }

  // Sandbox controls (the routes exist only when the server runs in sandbox mode).
  advanceSandboxClock(body: T.AdvanceSandboxClockInput, options?: CallOptions) {
    return this.#call<T.SandboxClockBody>('advanceSandboxClock', { body, options });
  }
  creditSandboxWallet(body: T.CreditSandboxWalletInput, options?: CallOptions) {
    return this.#call<T.SandboxCreditedBody>('creditSandboxWallet', { body, options });
  }
  /** The sandbox's acquirer opens a chargeback on one of the account's paid sales. */
  openSandboxDispute(body: T.OpenSandboxDisputeInput, options?: CallOptions) {
    return this.#call<T.DisputeChangedBody>('openSandboxDispute', { body, options });
  }
  resolveSandboxDispute(id: string, body: T.ResolveSandboxDisputeInput, options?: CallOptions) {
    return this.#call<T.DisputeChangedBody>('resolveSandboxDispute', {
      params: { id },
      body,
      options,
    });
  }
}
