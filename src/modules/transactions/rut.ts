// Chilean RUT: digits plus a mod-11 check digit (0-9 or K). Accepts `11.111.111-1`, `11111111-1`, `111111111`.

/** Normalised `digits + check digit` (upper-case K), or null when the text is not a valid RUT. */
export function normaliseRut(text: string): string | null {
  const compact = text.replace(/[.\s-]/g, '').toUpperCase();
  const m = /^(\d{1,9})([0-9K])$/.exec(compact);
  if (m === null) return null;
  const body = m[1]!;
  let sum = 0;
  let factor = 2;
  for (let i = body.length - 1; i >= 0; i--) {
    sum += (body.charCodeAt(i) - 48) * factor;
    factor = factor === 7 ? 2 : factor + 1;
  }
  const rest = 11 - (sum % 11);
  const expected = rest === 11 ? '0' : rest === 10 ? 'K' : String(rest);
  return expected === m[2] ? `${body.replace(/^0+(?=\d)/, '')}${expected}` : null;
}

/** `11.111.111-1` for display. */
export function formatRut(normalised: string): string {
  const body = normalised.slice(0, -1);
  return `${body.replace(/\B(?=(\d{3})+(?!\d))/g, '.')}-${normalised.slice(-1)}`;
}
