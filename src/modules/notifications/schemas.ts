import { Type } from 'typebox';
import { RuleFailureBody, withErrors } from '../../platform/http/schemas.ts';
import { limits } from '../../limits/index.ts';

// Spelled out (not mapped from the `as const` lists) so TypeBox keeps the literal types; a test checks they match.
export const StatusSchema = Type.Union([
  Type.Literal('pending'),
  Type.Literal('delivering'),
  Type.Literal('delivered'),
  Type.Literal('failed'),
]);
export const OutcomeSchema = Type.Union([
  Type.Literal('delivered'),
  Type.Literal('retry'),
  Type.Literal('failed'),
  Type.Literal('lost'),
  Type.Null(),
]);

const datePattern = '^\\d{4}-\\d{2}-\\d{2}$';
const Nullable = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Integer>>(
  t: T,
) => Type.Union([t, Type.Null()]);

export const ListQuery = Type.Object({
  status: Type.Optional(StatusSchema),
  date_init: Type.Optional(
    Type.String({
      pattern: datePattern,
      description: 'Created on or after this day (YYYY-MM-DD, service time zone)',
    }),
  ),
  date_end: Type.Optional(
    Type.String({
      pattern: datePattern,
      description: 'Created on or before this day (YYYY-MM-DD, service time zone)',
    }),
  ),
  page: Type.Integer({ minimum: 1, maximum: limits.notificationsPageMax, default: 1 }),
  per_page: Type.Integer({
    minimum: 1,
    maximum: limits.notificationsPerPageMax,
    default: limits.notificationsPerPageDefault,
  }),
});

export const IdParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: limits.notificationIdLengthMax }),
});

const NotificationItem = Type.Object({
  id: Type.String({ description: 'Also the webhook-id header of every attempt' }),
  account_id: Type.String(),
  event_type: Type.String(),
  url: Type.String(),
  status: StatusSchema,
  attempts: Type.Integer(),
  last_status_code: Nullable(Type.Integer()),
  last_error: Nullable(Type.String()),
  next_attempt_at: Nullable(
    Type.String({ description: 'When the next attempt is due (pending only)' }),
  ),
  created_at: Type.String(),
  delivered_at: Nullable(Type.String()),
});

const AttemptItem = Type.Object({
  attempt: Type.Integer(),
  started_at: Type.String(),
  finished_at: Nullable(Type.String()),
  outcome: OutcomeSchema,
  status_code: Nullable(Type.Integer()),
  latency_ms: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
  response_excerpt: Nullable(
    Type.String({
      description:
        "First KiB of the receiver's answer; null when none came, or from an origin the operator trusts for every account (decision 987)",
    }),
  ),
});

export const ListResponse = withErrors({
  200: Type.Object({
    status: Type.Literal('success'),
    page: Type.Integer(),
    per_page: Type.Integer(),
    total: Type.Integer(),
    notifications: Type.Array(NotificationItem),
  }),
});

export const ShowResponse = withErrors({
  200: Type.Object({
    status: Type.Literal('success'),
    notification: Type.Object({
      ...NotificationItem.properties,
      payload: Type.Record(Type.String(), Type.Unknown()),
      attempts_log: Type.Array(AttemptItem),
    }),
  }),
});

export const RetryResponse = withErrors({
  200: Type.Union([
    Type.Object({ status: Type.Literal('success'), notification: NotificationItem }),
    RuleFailureBody,
  ]),
});
