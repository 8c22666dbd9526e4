// Chilean RUT (tax id) with its módulo 11 check digit. Accepts what people type: `11.111.111-1`, `11111111-1`,
// `111111111`, `7.654.321-k`; refuses a wrong check digit, so a mistyped bank holder is caught at the edge.
const rutShape = /^(\d{1,9})-?([\dkK])$/;

export interface Rut {
  /** The number without check digit, as digits without leading zeros. */
  readonly body: string;
  /** `0`-`9` or `K`. */
  readonly checkDigit: string;
}

/** The check digit the number must carry: weights 2..7 from the right, 11 - sum mod 11, 11 -> 0, 10 -> K. */
export function rutCheckDigit(body: string): string {
  let sum = 0;
  let weight = 2;
  for (let i = body.length - 1; i >= 0; i--) {
    sum += Number(body[i]) * weight;
    weight = weight === 7 ? 2 : weight + 1;
  }
  const digit = 11 - (sum % 11);
  return digit === 11 ? '0' : digit === 10 ? 'K' : String(digit);
}

/** The RUT in the text, or null when it is malformed or its check digit is wrong. Dots must group by three. */
export function parseRut(text: string): Rut | null {
  const trimmed = text.trim();
  if (trimmed.includes('.') && !/^\d{1,3}(\.\d{3})+(-?[\dkK])$/.test(trimmed)) return null;
  const m = rutShape.exec(trimmed.replace(/\./g, ''));
  if (m === null) return null;
  const body = m[1]!.replace(/^0+/, '');
  if (body === '') return null;
  const checkDigit = m[2]!.toUpperCase();
  return rutCheckDigit(body) === checkDigit ? { body, checkDigit } : null;
}

export function isValidRut(text: string): boolean {
  return parseRut(text) !== null;
}

/**
 * The RUT as `digits + check digit` (upper-case K), or null when invalid: the form payers type on the checkout,
 * where a space may stand for the dash (`11111111 1`).
 */
export function normaliseRut(text: string): string | null {
  const rut = parseRut(text.trim().replace(/\s+/g, '-'));
  return rut === null ? null : `${rut.body}${rut.checkDigit}`;
}

/** `11.111.111-1` for display, from a normalised RUT. */
export function formatRut(normalised: string): string {
  const body = normalised.slice(0, -1);
  return `${body.replace(/\B(?=(\d{3})+(?!\d))/g, '.')}-${normalised.slice(-1)}`;
}
