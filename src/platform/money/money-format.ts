// Money as people read it in the currency's own country: one formatter for the checkout (payers) and the dashboard
// (merchants). Intl.NumberFormat with the currency's locale settles the symbol, separators and decimals: CLP in
// es-CL ($12.500), PEN in es-PE (S/ 125.50, as Peru writes it), VES in es-VE. A currency without a country of its
// own here falls back to es-CL. The amount reaches Intl as a bigint or a decimal string, never through a float.

/** The locale each currency is written in; es-CL for any other. */
const currencyLocales: Readonly<Record<string, string>> = {
  CLP: 'es-CL',
  PEN: 'es-PE',
  VES: 'es-VE',
};

/** Per process, not per app: a formatter is a pure function of its locale and currency (rule 21 keeps app state out). */
const formats = new Map<string, Intl.NumberFormat>();

function formatOf(currency: string): Intl.NumberFormat {
  let format = formats.get(currency);
  if (format === undefined) {
    format = new Intl.NumberFormat(currencyLocales[currency] ?? 'es-CL', {
      style: 'currency',
      currency,
    });
    formats.set(currency, format);
  }
  return format;
}

/** An amount in minor units (CLP has none; PEN and VES cents) as the currency's country writes it. */
export function formatMoney(amountMinor: bigint, currency: string): string {
  const format = formatOf(currency);
  const digits = format.resolvedOptions().maximumFractionDigits ?? 0;
  if (digits === 0) return format.format(amountMinor);
  const scale = 10n ** BigInt(digits);
  const sign = amountMinor < 0n ? '-' : '';
  const magnitude = amountMinor < 0n ? -amountMinor : amountMinor;
  const decimal = `${sign}${magnitude / scale}.${(magnitude % scale).toString().padStart(digits, '0')}`;
  return format.format(decimal as Intl.StringNumericLiteral);
}
