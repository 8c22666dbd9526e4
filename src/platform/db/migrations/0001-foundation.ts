import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Reference data: the Chilean banks with their SBIF codes, the PEN and VES banks of the reference, and the
// payment methods per currency (reference §11). Codes are the ones merchants already send.
const banks: ReadonlyArray<readonly [string, string, string]> = [
  ['CLP', '0001', 'Banco de Chile'],
  ['CLP', '0009', 'Banco Internacional'],
  ['CLP', '0012', 'Banco Estado'],
  ['CLP', '0014', 'Scotiabank'],
  ['CLP', '0016', 'Banco Bci'],
  ['CLP', '0028', 'Banco Bice'],
  ['CLP', '0031', 'HSBC Bank'],
  ['CLP', '0037', 'Santander'],
  ['CLP', '0039', 'Banco Itaú'],
  ['CLP', '0049', 'Banco Security'],
  ['CLP', '0051', 'Banco Falabella'],
  ['CLP', '0053', 'Banco Ripley'],
  ['CLP', '0055', 'Banco Consorcio'],
  ['CLP', '0059', 'Banco BTG Pactual Chile'],
  ['CLP', '0504', 'Scotiabank Azul'],
  ['CLP', '0672', 'Coopeuch'],
  ['CLP', '0729', 'Prepago Los Héroes'],
  ['CLP', '0730', 'Tenpo Prepago'],
  ['CLP', '0875', 'Mercado Pago Emisora'],
  ['PEN', '002', 'Banco de Crédito del Perú'],
  ['PEN', '003', 'Interbank'],
  ['PEN', '007', 'Citibank Perú S.A.'],
  ['PEN', '009', 'Scotiabank Perú'],
  ['PEN', '011', 'BBVA Perú'],
  ['PEN', '018', 'Banco de la Nación'],
  ['PEN', '035', 'Banco Pichincha'],
  ['PEN', '038', 'BanBif'],
  ['PEN', '049', 'Mibanco'],
  ['VES', '0102', 'Banco de Venezuela'],
  ['VES', '0104', 'Banco Venezolano De Credito'],
  ['VES', '0105', 'Banco Mercantil'],
  ['VES', '0108', 'Banco Provincial'],
  ['VES', '0114', 'Banco Del Caribe'],
  ['VES', '0115', 'Banco Exterior'],
  ['VES', '0128', 'Banco Caroni'],
  ['VES', '0134', 'Banesco'],
  ['VES', '0138', 'Banco Plaza'],
  ['VES', '0151', 'Banco Fondo Común'],
  ['VES', '0156', '100% Banco'],
  ['VES', '0163', 'Banco Del Tesoro'],
  ['VES', '0171', 'Banco Activo'],
  ['VES', '0172', 'Bancamiga'],
  ['VES', '0174', 'Banplus'],
  ['VES', '0175', 'Banco Bicentenario'],
  ['VES', '0191', 'Banco Nacional De Credito'],
];

const methods: ReadonlyArray<readonly [string, number, string, string, string]> = [
  ['CLP', 1, 'Webpay', 'Visa, Mastercard, Magna, American, Diners y Redcompra.', 'card'],
  [
    'CLP',
    2,
    'Khipu',
    'Utiliza tu banco, simplifica tus transferencias. (Pago Normal)',
    'bank_transfer',
  ],
  ['CLP', 4, 'ETpay', 'Recibe pagos por transferencia.', 'bank_transfer'],
  ['CLP', 6, 'Pago46', 'Paga en efectivo en comercios adheridos.', 'cash'],
  ['CLP', 9, 'MACH', 'Paga en comercios online internacionales y nacionales', 'wallet_app'],
  ['CLP', 19, 'Fintoc', 'Más simple que las transferencias', 'bank_transfer'],
  ['CLP', 23, 'Tenpo', 'Paga con tu cuenta Tenpo.', 'wallet_app'],
  [
    'CLP',
    26,
    'Floid',
    'Pagar de manera rápida y segura con tu billetera 100% digital.',
    'bank_transfer',
  ],
  ['CLP', 100, 'Webpay plus 1 a 3 cuotas', 'Tarjetas de crédito en 1 a 3 cuotas.', 'card'],
  ['CLP', 101, 'Webpay plus 4 a 6 cuotas', 'Tarjetas de crédito en 4 a 6 cuotas.', 'card'],
  ['CLP', 102, 'Webpay plus 7 a 12 cuotas', 'Tarjetas de crédito en 7 a 12 cuotas.', 'card'],
  ['PEN', 21, 'QR Interoperable', '', 'qr'],
  ['PEN', 25, 'Tarjetas', 'Débito, crédito, Mastercard, Visa y Diners Club.', 'card'],
  ['VES', 17, 'Vepuy', 'Utiliza tu banco, simplifica tus transferencias.', 'bank_transfer'],
];

export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE cobro_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE accounts (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 120),
      status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
      public_token_hash TEXT NOT NULL UNIQUE,
      public_token_enc TEXT NOT NULL,
      private_token_enc TEXT NOT NULL,
      webhook_secret_enc TEXT NOT NULL,
      created_at TIMESTAMPTZ NOT NULL,
      updated_at TIMESTAMPTZ NOT NULL
    );
    CREATE TABLE banks (
      code TEXT NOT NULL,
      name TEXT NOT NULL,
      currency TEXT NOT NULL,
      sort_order INTEGER NOT NULL,
      PRIMARY KEY (currency, code)
    );
    CREATE TABLE payment_methods (
      currency TEXT NOT NULL,
      payment INTEGER NOT NULL,
      name TEXT NOT NULL,
      description TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('card', 'bank_transfer', 'wallet_app', 'cash', 'qr', 'mobile')),
      sort_order INTEGER NOT NULL,
      PRIMARY KEY (currency, payment)
    );
  `,
  );
  const sortedBanks = [...banks].sort(
    (a, b) => a[0].localeCompare(b[0]) || a[2].localeCompare(b[2], 'es'),
  );
  await db
    .insertInto('banks')
    .values(
      sortedBanks.map(([currency, code, name], i) => ({ currency, code, name, sort_order: i })),
    )
    .execute();
  await db
    .insertInto('payment_methods')
    .values(
      methods.map(([currency, payment, name, description, kind], i) => ({
        currency,
        payment,
        name,
        description,
        kind,
        sort_order: i,
      })),
    )
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    'DROP TABLE payment_methods;\nDROP TABLE banks;\nDROP TABLE accounts;\nDROP TABLE cobro_meta;\n',
  );
}
