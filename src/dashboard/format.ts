// How the dashboard shows values to a Spanish-speaking merchant: money with Intl.NumberFormat in the currency's locale ($25.000, S/ 125.50),
// states in Spanish, instants in the service zone as the API writes them.
import { formatTimestamp, formatZoneOffset, parseLocal } from '../platform/time/time-format.ts';

/** Money as the currency's country writes it: the one formatter the checkout uses too. */
export { formatMoney } from '../platform/money/money-format.ts';

export const transactionStatusLabels: Readonly<Record<string, string>> = {
  pending: 'Pendiente',
  success: 'Pagada',
  rejected: 'Rechazada',
  'refunded partial': 'Reembolsada en parte',
  refunded: 'Reembolsada',
};

export const callbackStatusLabels: Readonly<Record<string, string>> = {
  pending: 'Por enviar',
  delivering: 'Enviando',
  delivered: 'Entregada',
  failed: 'Fallida',
};

export const attemptOutcomeLabels: Readonly<Record<string, string>> = {
  delivered: 'Entregada',
  retry: 'Se reintentará',
  failed: 'Fallida',
  lost: 'Sin respuesta',
};

/** An instant in the service zone with the zone's offset, so no reader takes it for their own: `2026-11-27 10:00:00 -03`. */
export function formatInstant(at: Date, timeZone: string): string {
  return `${formatTimestamp(at, timeZone)} ${formatZoneOffset(at, timeZone)}`;
}

/**
 * A `YYYY-MM-DD HH:MM:SS` the API already wrote in the service zone (callbacks, subscriptions), with the zone's
 * offset added; a date alone or anything else is shown as it is. In the hour a zone repeats when its clocks go
 * back, the local text alone cannot tell its two offsets apart; parseLocal's reading is named.
 */
export function zonedLocal(text: string, timeZone: string): string {
  if (!/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(text)) return text;
  const at = parseLocal(text, timeZone);
  return at === null ? text : `${text} ${formatZoneOffset(at, timeZone)}`;
}

/** A `YYYY-MM-DD` form field as the local day's bounds in the service zone; null when it is not a real date. */
export function localDayBounds(text: string, timeZone: string): { start: Date; end: Date } | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return null;
  const start = parseLocal(text, timeZone);
  if (start === null) return null;
  const [y, m, d] = text.split('-').map(Number) as [number, number, number];
  const next = new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
  const end = parseLocal(next, timeZone);
  return end === null ? null : { start, end };
}

export const payoutStatusLabels: Readonly<Record<string, string>> = {
  pending: 'Pendiente',
  processing: 'En proceso',
  success: 'Pagado',
  banking_error: 'Error bancario',
  fraud_prevention: 'Retenido por prevención de fraude',
};

export const payoutKindLabels: Readonly<Record<string, string>> = {
  payout: 'Pago a terceros',
  withdrawal: 'Retiro a tu cuenta',
  refund: 'Devolución a un pagador',
};

export const movementKindLabels: Readonly<Record<string, string>> = {
  settlement: 'Liquidación de ventas',
  payout: 'Pago a terceros',
  withdrawal: 'Retiro a tu cuenta',
  payout_reversal: 'Devolución de pago rechazado',
  withdrawal_reversal: 'Devolución de retiro rechazado',
  adjustment: 'Ajuste del operador',
  sandbox_credit: 'Abono de prueba',
  escrow_release: 'Liberación de custodia',
};

/** A `page` query value as a page number from 1 to `max`; anything else is page 1. */
export function pageNumberOf(value: unknown, max: number): number {
  return typeof value === 'string' && /^\d{1,9}$/.test(value)
    ? Math.min(Math.max(Number(value), 1), max)
    : 1;
}

export const subscriptionStatusLabels: Readonly<Record<string, string>> = {
  register: 'Esperando tarjeta',
  active: 'Activa',
  suspended: 'Suspendida',
  finish: 'Terminada',
  delete: 'Eliminada',
  cancel: 'Cancelada',
};

export const cycleStatusLabels: Readonly<Record<string, string>> = {
  pending: 'Por cobrar',
  success: 'Pagado',
  retry: 'Se reintentará',
  'maximum attempt limit': 'Intentos agotados',
  'canceled by customer': 'Cancelado por el cliente',
  'canceled by paymaster': 'Cancelado',
};

export const planTypeLabels: Readonly<Record<string, string>> = {
  fixed: 'Monto fijo',
  variable: 'Monto variable',
  consumption: 'Consumo',
};

const intervalLabels: Readonly<Record<string, readonly [string, string]>> = {
  day: ['día', 'días'],
  week: ['semana', 'semanas'],
  month: ['mes', 'meses'],
  year: ['año', 'años'],
};

/** `cada mes`, `cada 2 semanas`. */
export function intervalLabel(unit: string, count: number): string {
  const [one, many] = intervalLabels[unit] ?? [unit, unit];
  return count === 1 ? `cada ${one}` : `cada ${count} ${many}`;
}
