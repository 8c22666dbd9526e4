// Validates what the payer typed. Problems are messages in Spanish; nothing typed into a card field is kept.
import { luhnValid, type CardDetails } from '../platform/processors/processor.ts';
import { normaliseRut } from '../platform/ids/rut.ts';
import { installmentRanges } from './pages.ts';
import type { FormProblem } from './form-problems.ts';

/** The posted form's text fields (card, expiry, cvv, installments, rut, password, bank). */
export type FormFields = { readonly [name: string]: string | number | undefined };

function text(v: string | number | undefined): string {
  return v === undefined ? '' : String(v);
}

export type FormResult<T> =
  | { ok: true; value: T }
  | { ok: false; problems: readonly FormProblem[] };

export interface CardForm {
  readonly card: CardDetails;
  readonly installments: number;
}

/** `now` is the payer's month in the service zone, as `YYYY-MM`. */
export function parseCardForm(
  fields: FormFields,
  payment: number,
  currentMonth: string,
): FormResult<CardForm> {
  const problems: FormProblem[] = [];
  const number = text(fields.card_number).replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(number))
    problems.push({
      field: 'card_number',
      text: 'Ingresa el número de la tarjeta (12 a 19 dígitos).',
    });
  else if (!luhnValid(number))
    problems.push({
      field: 'card_number',
      text: 'El número de tarjeta no es válido: revisa los dígitos.',
    });
  const expiry = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(text(fields.expiry));
  let expiryMonth = 0;
  let expiryYear = 0;
  if (expiry === null)
    problems.push({ field: 'expiry', text: 'Ingresa el vencimiento como MM/AA.' });
  else {
    expiryMonth = Number(expiry[1]);
    expiryYear = expiry[2]!.length === 2 ? 2000 + Number(expiry[2]) : Number(expiry[2]);
    if (expiryMonth < 1 || expiryMonth > 12)
      problems.push({ field: 'expiry', text: 'El mes de vencimiento no es válido.' });
    else if (`${expiryYear}-${String(expiryMonth).padStart(2, '0')}` < currentMonth)
      problems.push({ field: 'expiry', text: 'La tarjeta está vencida.' });
  }
  const cvv = text(fields.cvv).trim();
  if (!/^\d{3,4}$/.test(cvv))
    problems.push({ field: 'cvv', text: 'Ingresa el código de seguridad (CVV) de 3 o 4 dígitos.' });
  const range = installmentRanges[payment];
  let installments = 0;
  if (range !== undefined) {
    installments = Number(fields.installments === undefined ? range[0] : text(fields.installments));
    if (!Number.isInteger(installments) || installments < range[0] || installments > range[1])
      problems.push({ field: 'installments', text: 'Elige un número de cuotas válido.' });
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, value: { card: { number, expiryMonth, expiryYear, cvv }, installments } };
}

export interface BankForm {
  readonly rut: string;
  readonly password: string;
  readonly bank: string | null;
}

export function parseBankForm(
  fields: FormFields,
  requiredRut: string | null,
  bankCodes: ReadonlySet<string>,
): FormResult<BankForm> {
  const problems: FormProblem[] = [];
  const rut = normaliseRut(text(fields.rut));
  if (rut === null)
    problems.push({ field: 'rut', text: 'Ingresa un RUT válido, por ejemplo 11.111.111-1.' });
  else if (requiredRut !== null && rut !== requiredRut)
    problems.push({
      field: 'rut',
      text: 'El RUT debe ser el del pagador indicado por el comercio.',
    });
  const password = text(fields.password);
  if (password.length === 0)
    problems.push({ field: 'password', text: 'Ingresa la clave de tu banco.' });
  const bank = text(fields.bank) === '' ? null : text(fields.bank);
  if (bank !== null && !bankCodes.has(bank))
    problems.push({ field: 'bank', text: 'Elige un banco de la lista.' });
  if (problems.length > 0 || rut === null) return { ok: false, problems };
  return { ok: true, value: { rut, password, bank } };
}
