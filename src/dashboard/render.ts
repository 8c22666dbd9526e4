// Renders a dashboard page: the eta template (views/*.eta, escaped by default) with what every page shows (the
// account, the sign-out form's CSRF token, the sandbox badge) and the helpers templates format values with.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import '@fastify/view';
import '@fastify/csrf-protection';
import type { AppContext } from '../platform/context.ts';
import { csrfUserInfo, type DashboardAccount } from './session.ts';
import { roleAllows, type DashboardRole } from './users.ts';
import {
  attemptOutcomeLabels,
  callbackStatusLabels,
  cycleStatusLabels,
  formatInstant,
  formatMoney,
  intervalLabel,
  movementKindLabels,
  payoutKindLabels,
  payoutStatusLabels,
  planTypeLabels,
  subscriptionStatusLabels,
  transactionStatusLabels,
  zonedLocal,
} from './format.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in merchant of a dashboard request; null on the sign-in page and unknown paths. */
    dashboardAccount: DashboardAccount | null;
  }
}

/** The sections of the navigation, in order: path and Spanish label. */
const sections = [
  { key: 'home', path: '/dashboard', label: 'Inicio' },
  { key: 'transactions', path: '/dashboard/transactions', label: 'Transacciones' },
  { key: 'wallet', path: '/dashboard/wallet', label: 'Billetera' },
  { key: 'payouts', path: '/dashboard/payouts', label: 'Pagos y retiros' },
  { key: 'subscriptions', path: '/dashboard/subscriptions', label: 'Suscripciones' },
  { key: 'plans', path: '/dashboard/plans', label: 'Planes' },
  { key: 'disputes', path: '/dashboard/disputes', label: 'Contracargos' },
  { key: 'callbacks', path: '/dashboard/callbacks', label: 'Notificaciones' },
  { key: 'audit', path: '/dashboard/audit', label: 'Registro de cambios' },
  { key: 'sandbox', path: '/dashboard/sandbox', label: 'Reloj de pruebas' },
  { key: 'keys', path: '/dashboard/keys', label: 'Claves de API', role: 'developer' },
  { key: 'users', path: '/dashboard/users', label: 'Usuarios', role: 'owner' },
] as const;

type SectionKey = (typeof sections)[number]['key'];

export interface PageData {
  readonly title: string;
  readonly section?: SectionKey | null;
  readonly [key: string]: unknown;
}

/** The signed-in merchant; a page behind the session check that runs without one is a bug. */
export function accountOf(request: FastifyRequest): DashboardAccount {
  if (request.dashboardAccount === null)
    throw new Error('dashboard route reached without a session');
  return request.dashboardAccount;
}

/** A form post's route options: the least role that may post it (decision 541) and the CSRF check. */
export function formOptions(app: FastifyInstance, role: DashboardRole) {
  return { config: { dashboardRole: role }, preHandler: app.csrfProtection };
}

/**
 * Who acts on a dashboard request: the signed-in user's id, or null when the account's tokens opened the session
 * (the account's owner). The actor of a dashboard change (issue 36's audit trail).
 */
export function dashboardUserOf(request: FastifyRequest): string | null {
  return accountOf(request).userId;
}

/** A link's query string from the values that are set (`?a=1&b=2`, or nothing). */
export function queryOf(values: Readonly<Record<string, string | number | null>>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values))
    if (value !== null && value !== '') params.set(key, String(value));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

export function securityHeaders(reply: FastifyReply): void {
  reply.header(
    'content-security-policy',
    "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
  reply.header('x-frame-options', 'DENY');
  reply.header('referrer-policy', 'same-origin');
  reply.header('x-content-type-options', 'nosniff');
  reply.header('permissions-policy', 'camera=(), microphone=(), geolocation=(), payment=()');
}

export async function renderPage(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  template: string,
  data: PageData,
): Promise<FastifyReply> {
  const tz = ctx.config.timeZone;
  const html = await reply.viewAsync(template, {
    section: null,
    ...data,
    account: request.dashboardAccount,
    csrf: reply.generateCsrf({ userInfo: csrfUserInfo(request.cookies) }),
    sandbox: ctx.config.mode === 'sandbox',
    sections: sections.filter(
      (s) =>
        (s.key !== 'sandbox' || ctx.config.mode === 'sandbox') &&
        (!('role' in s) || roleAllows(request.dashboardAccount?.role ?? 'viewer', s.role)),
    ),
    money: (minor: bigint, currency: string) => formatMoney(BigInt(minor), currency),
    when: (at: Date | null) => (at === null ? '' : formatInstant(at, tz)),
    /** A local timestamp the API wrote (callbacks, subscriptions), with the zone's offset. */
    local: (text: string | null) => (text === null ? '' : zonedLocal(text, tz)),
    transactionStatus: (status: string) => transactionStatusLabels[status] ?? status,
    callbackStatus: (status: string) => callbackStatusLabels[status] ?? status,
    attemptOutcome: (outcome: string | null) =>
      outcome === null ? 'En curso' : (attemptOutcomeLabels[outcome] ?? outcome),
    payoutStatus: (status: string) => payoutStatusLabels[status] ?? status,
    payoutKind: (kind: string) => payoutKindLabels[kind] ?? kind,
    movementKind: (kind: string) => movementKindLabels[kind] ?? kind,
    subscriptionStatus: (status: string) => subscriptionStatusLabels[status] ?? status,
    cycleStatus: (status: string) => cycleStatusLabels[status] ?? status,
    planType: (type: string) => planTypeLabels[type] ?? type,
    interval: intervalLabel,
  });
  reply.header('cache-control', 'no-store');
  return reply.code(status).type('text/html; charset=utf-8').send(html);
}

/** A page of its own for a mistake or a missing resource, in the dashboard's frame. */
export function renderMessage(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  title: string,
  message: string,
): Promise<FastifyReply> {
  return renderPage(ctx, request, reply, status, 'message', { title, message });
}
