// How the dashboard shows values to a Spanish-speaking merchant: money with Intl.NumberFormat in es-CL ($25.000),
// states in Spanish, instants in the service zone as the API writes them.
import { formatTimestamp, parseLocal } from '../platform/time-format.ts';

const moneyFormats = new Map<string, Intl.NumberFormat>();

function moneyFormat(currency: string): Intl.NumberFormat {
  let format = moneyFormats.get(currency);
  if (format === undefined) {
    format = new Intl.NumberFormat('es-CL', { style: 'currency', currency });
    moneyFormats.set(currency, format);
  }
  return format;
}

/**
 * An amount in minor units (CLP has none; PEN and VES cents) as es-CL writes it. The amount goes to Intl as a
 * bigint or a decimal string, never through a float.
 */
export function formatMoney(minor: bigint, currency: string): string {
  const format = moneyFormat(currency);
  const digits = format.resolvedOptions().maximumFractionDigits ?? 0;
  if (digits === 0) return format.format(minor);
  const scale = 10n ** BigInt(digits);
  const sign = minor < 0n ? '-' : '';
  const magnitude = minor < 0n ? -minor : minor;
  const decimal = `${sign}${magnitude / scale}.${(magnitude % scale).toString().padStart(digits, '0')}`;
  return format.format(decimal as Intl.StringNumericLiteral);
}

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

export function formatInstant(at: Date, timeZone: string): string {
  return formatTimestamp(at, timeZone);
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

export const payoutKindLabels: Readonly<Record<string, string>> = { payout: 'Pago a terceros', withdrawal: 'Retiro a tu cuenta', refund: 'Devolución a un pagador' };

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
  return typeof value === 'string' && /^\d{1,9}$/.test(value) ? Math.min(Math.max(Number(value), 1), max) : 1;
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

export const planTypeLabels: Readonly<Record<string, string>> = { fixed: 'Monto fijo', variable: 'Monto variable', consumption: 'Consumo' };

const intervalLabels: Readonly<Record<string, readonly [string, string]>> = {
  day: ['día', 'días'], week: ['semana', 'semanas'], month: ['mes', 'meses'], year: ['año', 'años'],
};

/** `cada mes`, `cada 2 semanas`. */
export function intervalLabel(unit: string, count: number): string {
  const [one, many] = intervalLabels[unit] ?? [unit, unit];
  return count === 1 ? `cada ${one}` : `cada ${count} ${many}`;
}
