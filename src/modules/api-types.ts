// Request and response types of every operation, taken from the route schemas with Static<> so they follow the
// server. The client package does not import this file: packages/client/scripts/generate-types.ts expands it into
// packages/client/src/types.ts, plain types with no server or typebox reference, and a test keeps the two equal.
import type { Static } from 'typebox';
import type { ErrorEnvelope } from '../platform/http/schemas.ts';
import type { BanksResponse, CurrencyQuery, PaymentMethodsResponse } from './reference/schemas.ts';
import type {
  CreateTransactionBody,
  CreateTransactionResponse,
  TransactionListQuery,
  TransactionListResponse,
  TransactionView,
} from './transactions/schemas.ts';
import type {
  PayoutCreateBody,
  PayoutCreateResponse,
  PayoutResponse,
  PayoutV3Response,
  SandboxCreditBody,
  SandboxCredited,
  WalletQuery,
  WalletSummary,
  WithdrawBody,
  WithdrawResponse,
} from './wallet/schemas.ts';
import type {
  ClientCreateBody,
  ClientResponse,
  ClientUpdateBody,
  ClientUpdateResponse,
  MembershipCreateBody,
  MembershipCreateResponse,
  MembershipResponse,
  SuspendedResponse,
} from './marketplace/schemas.ts';
import type { EventCreateBody, EventCreateResponse, EventGetResponse } from './events/schemas.ts';
import type {
  ListQuery as NotificationListQuerySchema,
  ListResponse,
  RetryResponse,
  ShowResponse,
} from './notifications/schemas.ts';
import type { AccountResponse } from './accounts/schemas.ts';
import type {
  NullificationBody as NullificationRequest,
  NullificationGetResponse,
  NullificationResponse,
} from './refunds/schemas.ts';
import type { EscrowBody, EscrowResponse } from './escrow/schemas.ts';
import type {
  ClientCreateBody as SuClientCreateBody,
  ClientCreateResponse as SuClientCreateResponse,
  ClientResponse as SuClientResponse,
  ClientUpdateBody as SuClientUpdateBody,
  ClientUpdateResponse as SuClientUpdateResponse,
  CustomersQuery,
  CustomersResponse,
  DeletedResponse as SuDeletedResponse,
  PlanCreateBody,
  PlanCreateResponse,
  PlanResponse,
  PlansResponse,
} from './subscriptions/schemas.ts';
import type {
  SubscriptionCreateBody,
  SubscriptionCreateResponse,
  SubscriptionDeletedResponse,
  SubscriptionListQuery,
  SubscriptionListV1Response,
  SubscriptionListV3Response,
  SubscriptionResponse,
} from './subscriptions/subscription-schemas.ts';
import type {
  CardDeleteBody,
  CardDeleteResponse,
  CardLinkBody,
  CardLinkResponse,
} from './subscriptions/card-schemas.ts';
import type {
  ConsumptionChargeBody,
  ConsumptionChargeResponse,
} from './subscriptions/consumption-schemas.ts';
import type { ConciliationBody, ConciliationResponse } from './conciliation/schemas.ts';
import type { MallCreateBody, MallCreateResponse, MallView } from './mall/schemas.ts';
import type {
  AdvanceBody as ClockAdvanceBody,
  AdvanceResponse as ClockAdvanceResponse,
} from './sandbox/schemas.ts';
import type {
  DisputeGetResponse,
  DisputeListQuery,
  DisputeListResponse,
  DisputeResponse,
  EvidenceBody,
  SandboxOpenBody,
  SandboxResolveBody,
} from './disputes/schemas.ts';

/** The error envelope of 4xx/5xx answers (supplement §3). */
export type ErrorBody = Static<typeof ErrorEnvelope>;

/**
 * What every method returns: the HTTP status and the parsed JSON body. The body is the route's 200 shape or an
 * error envelope; note that HTTP 200 can also carry `status: "failed"` (a refused business rule), see isFailed().
 */
export interface CobroResponse<T> {
  readonly httpStatus: number;
  readonly body: T | ErrorBody;
}

// Request bodies.
export type CreateTransactionInput = Static<typeof CreateTransactionBody>;
export type CreatePayoutInput = Static<typeof PayoutCreateBody>;
export type WithdrawInput = Static<typeof WithdrawBody>;
export type CreateMarketplaceClientInput = Static<typeof ClientCreateBody>;
export type UpdateMarketplaceClientInput = Static<typeof ClientUpdateBody>;
export type CreateMembershipInput = Static<typeof MembershipCreateBody>;
export type CreateEventInput = Static<typeof EventCreateBody>;
export type AdvanceSandboxClockInput = Static<typeof ClockAdvanceBody>;
export type CreditSandboxWalletInput = Static<typeof SandboxCreditBody>;
export type CreateNullificationInput = Static<typeof NullificationRequest>;
export type ReleaseEscrowInput = Static<typeof EscrowBody>;
export type ConciliationInput = Static<typeof ConciliationBody>;
export type CreateMallInput = Static<typeof MallCreateBody>;

// Query strings: every field is optional on the wire (the server fills defaults).
export type CurrencyFilter = Partial<Static<typeof CurrencyQuery>>;
export type TransactionListFilter = Partial<Static<typeof TransactionListQuery>>;
export type WalletFilter = Partial<Static<typeof WalletQuery>>;
export type NotificationListFilter = Partial<Static<typeof NotificationListQuerySchema>>;

// Successful (HTTP 200) bodies.
export type BanksBody = Static<(typeof BanksResponse)[200]>;
export type PaymentMethodsBody = Static<(typeof PaymentMethodsResponse)[200]>;
export type AccountBody = Static<typeof AccountResponse>;
export type TransactionCreatedBody = Static<typeof CreateTransactionResponse>;
export type TransactionBody = Static<typeof TransactionView>;
export type TransactionListBody = Static<typeof TransactionListResponse>;
export type WalletBody = Static<typeof WalletSummary>;
export type PayoutCreatedBody = Static<typeof PayoutCreateResponse>;
export type WithdrawBodyResponse = Static<typeof WithdrawResponse>;
export type PayoutBody = Static<typeof PayoutResponse>;
export type PayoutV3Body = Static<typeof PayoutV3Response>;
export type MarketplaceClientBody = Static<typeof ClientResponse>;
export type MarketplaceClientUpdatedBody = Static<typeof ClientUpdateResponse>;
export type SuspendedBody = Static<typeof SuspendedResponse>;
export type MembershipCreatedBody = Static<typeof MembershipCreateResponse>;
export type MembershipBody = Static<typeof MembershipResponse>;
export type EventCreatedBody = Static<typeof EventCreateResponse>;
export type EventBody = Static<typeof EventGetResponse>;
export type NotificationListBody = Static<(typeof ListResponse)[200]>;
export type NotificationBody = Static<(typeof ShowResponse)[200]>;
export type NotificationRetryBody = Static<(typeof RetryResponse)[200]>;
export type SandboxClockBody = Static<typeof ClockAdvanceResponse>;
export type SandboxCreditedBody = Static<typeof SandboxCredited>;
export type NullificationCreatedBody = Static<typeof NullificationResponse>;
export type NullificationBody = Static<typeof NullificationGetResponse>;
export type EscrowReleasedBody = Static<typeof EscrowResponse>;

// Subscriptions (reference §7, §8).
export type CreateSubscriptionClientInput = Static<typeof SuClientCreateBody>;
export type UpdateSubscriptionClientInput = Static<typeof SuClientUpdateBody>;
export type SubscriptionCustomersFilter = Partial<Static<typeof CustomersQuery>>;
export type CreatePlanInput = Static<typeof PlanCreateBody>;
export type SubscriptionClientCreatedBody = Static<typeof SuClientCreateResponse>;
export type SubscriptionClientBody = Static<typeof SuClientResponse>;
export type SubscriptionClientUpdatedBody = Static<typeof SuClientUpdateResponse>;
export type SubscriptionDeletedBody = Static<typeof SuDeletedResponse>;
export type SubscriptionCustomersBody = Static<typeof CustomersResponse>;
export type PlanCreatedBody = Static<typeof PlanCreateResponse>;
export type PlanBody = Static<typeof PlanResponse>;
export type PlansBody = Static<typeof PlansResponse>;
export type CreateSubscriptionInput = Static<typeof SubscriptionCreateBody>;
export type SubscriptionListFilter = Partial<Static<typeof SubscriptionListQuery>>;
export type SubscriptionCreatedBody = Static<typeof SubscriptionCreateResponse>;
export type SubscriptionBody = Static<typeof SubscriptionResponse>;
export type SubscriptionListBody = Static<typeof SubscriptionListV1Response>;
export type SubscriptionListV3Body = Static<typeof SubscriptionListV3Response>;
export type SubscriptionEndedBody = Static<typeof SubscriptionDeletedResponse>;
export type SubscriptionCardLinkInput = Static<typeof CardLinkBody>;
export type SubscriptionCardDeleteInput = Static<typeof CardDeleteBody>;
export type SubscriptionCardLinkBody = Static<typeof CardLinkResponse>;
export type SubscriptionCardDeletedBody = Static<typeof CardDeleteResponse>;
export type SubscriptionChargeInput = Static<typeof ConsumptionChargeBody>;
export type SubscriptionChargeBody = Static<typeof ConsumptionChargeResponse>;
export type ConciliationReportBody = Static<typeof ConciliationResponse>;
export type MallCreatedBody = Static<typeof MallCreateResponse>;
export type MallBody = Static<typeof MallView>;

// Disputes (chargebacks, decision 530).
export type DisputeListFilter = Partial<Static<typeof DisputeListQuery>>;
export type DisputeEvidenceInput = Static<typeof EvidenceBody>;
export type OpenSandboxDisputeInput = Static<typeof SandboxOpenBody>;
export type ResolveSandboxDisputeInput = Static<typeof SandboxResolveBody>;
export type DisputeListBody = Static<typeof DisputeListResponse>;
export type DisputeBody = Static<typeof DisputeGetResponse>;
export type DisputeChangedBody = Static<typeof DisputeResponse>;
