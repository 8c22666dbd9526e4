// Fintoc names a Chilean bank by its own institution id (`cl_banco_de_chile`), not by the SBIF code the seed's
// payouts carry (`accountbank_sbif`, a code of GET /api/banks). Decision 750: this table maps the catalogue's CLP
// codes to the ids of Fintoc's "Chile institution codes" page (docs.fintoc.com/api/fintoc-api/chile-institution-codes).
// A code with no id there is left out on purpose: its payout is refused before any transfer is sent, never guessed.
//   0059 Banco BTG Pactual Chile: not on Fintoc's page.
//   0504 Scotiabank Azul (the former BBVA Chile): Fintoc lists `cl_banco_bbva` as "BBVA"; that the two are one
//        institution for Fintoc's transfers is not written there, so it waits for Fintoc to confirm it.
// A test keeps every CLP bank of the catalogue either here or in `unmappedSbif`.

const institutionBySbif: Readonly<Record<string, string>> = {
  '0001': 'cl_banco_de_chile',
  '0009': 'cl_banco_internacional',
  '0012': 'cl_banco_estado',
  '0014': 'cl_banco_scotiabank',
  '0016': 'cl_banco_bci',
  '0028': 'cl_banco_bice',
  '0031': 'cl_banco_hsbc',
  '0037': 'cl_banco_santander',
  '0039': 'cl_banco_itau',
  '0049': 'cl_banco_security',
  '0051': 'cl_banco_falabella',
  '0053': 'cl_banco_ripley',
  '0055': 'cl_banco_consorcio',
  '0672': 'cl_banco_coopeuch',
  '0729': 'cl_prepago_los_heroes',
  '0730': 'cl_tenpo',
  '0875': 'cl_mercado_pago',
};

/** The catalogue's CLP codes Fintoc names no institution for (see above). */
export const unmappedSbif: ReadonlySet<string> = new Set(['0059', '0504']);

/** Fintoc's institution id for the bank of SBIF code `sbif`, or null when Fintoc names none. */
export function fintocInstitutionOf(sbif: string): string | null {
  return Object.hasOwn(institutionBySbif, sbif) ? (institutionBySbif[sbif] ?? null) : null;
}

/** The payout's reason_rejection when its bank has no Fintoc institution id: nothing was sent. */
export function unmappedBankReason(sbif: string): string {
  return `Fintoc: el banco ${sbif} no tiene institución en Fintoc; no se envió la transferencia`;
}
