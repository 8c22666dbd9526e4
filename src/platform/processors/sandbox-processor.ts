// The sandbox processor: the test cards and bank credentials of reference §13 decide the outcome; any other card
// or credential is declined with a message that says why. Nothing leaves the process.
import { createHash, randomInt } from 'node:crypto';
import { newId } from '../ids/ids.ts';
import {
  cardBrand,
  type ChargeOutcome,
  type ChargeRequest,
  type PaymentProcessor,
  type RefundOutcome,
  type RefundRequest,
  type StoredCardCharge,
} from './processor.ts';

type CardKind = 'credit' | 'debit' | 'prepaid';

interface TestCard {
  readonly number: string;
  /** null: any security code (the reference lists none for Redcompra). */
  readonly cvv: string | null;
  readonly kind: CardKind;
  readonly approved: boolean;
  /** Enrols (its first charge is approved) but every later charge on its stored token is declined. */
  readonly storedDeclined?: true;
}

export const sandboxTestCards: readonly TestCard[] = [
  { number: '4051885600446623', cvv: '123', kind: 'credit', approved: true },
  { number: '370000000002032', cvv: '1234', kind: 'credit', approved: true },
  { number: '5186059559590568', cvv: '123', kind: 'credit', approved: false },
  { number: '4051884239937763', cvv: null, kind: 'debit', approved: true },
  { number: '5186008541233829', cvv: null, kind: 'debit', approved: false },
  { number: '4051886000056590', cvv: '123', kind: 'prepaid', approved: true },
  { number: '5186174110629480', cvv: '123', kind: 'prepaid', approved: false },
  // Cobro's own, after Stripe's card of the same number: attaches fine, declines every later charge, so a
  // subscription's declined cycles, retries and suspension can be tried (docs/subscriptions.md).
  { number: '4000000000000341', cvv: null, kind: 'credit', approved: true, storedDeclined: true },
];

/** The sandbox bank login (reference §13.3): RUT 11.111.111-1, password 123. */
const sandboxBankRut = '111111111';
const sandboxBankPassword = '123';

const rejectedMessage = 'Rechazo de transacción.';

function cardType(kind: CardKind, installments: number): string {
  switch (kind) {
    case 'credit':
      return installments > 0 ? 'VC' : 'VN';
    case 'debit':
      return 'VD';
    case 'prepaid':
      return 'VP';
    default: {
      const never: never = kind;
      return never;
    }
  }
}

function authorizationCode(): string {
  return String(randomInt(100_000, 1_000_000));
}

/**
 * A sandbox card token names its test card by the last four digits (unique among the test cards) followed by
 * random hex: `tok_` + 24 characters like before, and a stored-card charge needs no table to find its card.
 */
function cardTokenFor(number: string): string {
  return `tok_${number.slice(-4)}${newId('', 20)}`;
}

function cardOfToken(token: string): TestCard | undefined {
  const match = /^tok_(\d{4})[0-9a-f]{20}$/.exec(token);
  return match === null ? undefined : sandboxTestCards.find((c) => c.number.endsWith(match[1]!));
}

/** A sandbox authorization code: six digits (authorizationCode below). */
const sandboxAuthorizationPattern = /^\d{6}$/;

async function refund(request: RefundRequest): Promise<RefundOutcome> {
  if (request.amountMinor <= 0n)
    return { approved: false, gatewayMessage: 'refund amount must be positive' };
  if (
    !sandboxAuthorizationPattern.test(request.authorizationCode) ||
    request.chargeIdempotencyKey === ''
  ) {
    return { approved: false, gatewayMessage: 'unknown authorization' };
  }
  // Deterministic by the original charge and the refund's key, so a retry with the same key gets the same code.
  const digest = createHash('sha256')
    .update(`${request.chargeIdempotencyKey}\u0000${request.idempotencyKey}`)
    .digest('hex');
  return { approved: true, refundCode: `ref${digest.slice(0, 17)}` };
}

async function chargeStoredCard(request: StoredCardCharge): Promise<ChargeOutcome> {
  const test = cardOfToken(request.cardToken);
  if (test === undefined) {
    return {
      approved: false,
      payerMessage: 'Tarjeta guardada desconocida.',
      gatewayMessage: rejectedMessage,
      cardBrand: null,
      cardLast4: null,
    };
  }
  const brand = cardBrand(test.number);
  const last4 = test.number.slice(-4);
  // As a real processor does right before a first send (decision 825): a try no longer wanted is declined unsent.
  // The sandbox keeps no record of its sends, so one an earlier claim may have made is made again, never declined.
  const unwanted =
    request.mayHaveBeenSent === true ? null : ((await request.unsentReason?.()) ?? null);
  if (unwanted !== null)
    return {
      approved: false,
      payerMessage: unwanted,
      gatewayMessage: unwanted,
      cardBrand: brand,
      cardLast4: last4,
    };
  if (!test.approved || test.storedDeclined === true)
    return {
      approved: false,
      payerMessage: 'Tarjeta rechazada por el emisor.',
      gatewayMessage: rejectedMessage,
      cardBrand: brand,
      cardLast4: last4,
    };
  return {
    approved: true,
    authorizationCode: authorizationCode(),
    cardType: cardType(test.kind, request.installments),
    cardBrand: brand,
    cardLast4: last4,
    cardToken: request.cardToken,
  };
}

export const sandboxProcessor: PaymentProcessor = {
  refund,
  chargeStoredCard,
  name: 'sandbox',
  supports: (kind) => kind === 'card' || kind === 'bank_transfer',
  async charge(request: ChargeRequest): Promise<ChargeOutcome> {
    if (request.kind === 'bank_transfer') {
      if (request.rut === sandboxBankRut && request.password === sandboxBankPassword) {
        return {
          approved: true,
          authorizationCode: authorizationCode(),
          cardType: null,
          cardBrand: null,
          cardLast4: null,
          cardToken: null,
        };
      }
      return {
        approved: false,
        payerMessage:
          'El banco rechazó la transferencia: RUT o clave incorrectos. En el ambiente de pruebas usa RUT 11.111.111-1 y clave 123.',
        gatewayMessage: rejectedMessage,
        cardBrand: null,
        cardLast4: null,
      };
    }
    const brand = cardBrand(request.card.number);
    const last4 = request.card.number.slice(-4);
    const test = sandboxTestCards.find((c) => c.number === request.card.number);
    if (test === undefined) {
      return {
        approved: false,
        payerMessage:
          'Tarjeta rechazada: en el ambiente de pruebas solo se aceptan las tarjetas de prueba publicadas.',
        gatewayMessage: rejectedMessage,
        cardBrand: brand,
        cardLast4: last4,
      };
    }
    if (test.cvv !== null && test.cvv !== request.card.cvv) {
      return {
        approved: false,
        payerMessage: 'Tarjeta rechazada: el código de seguridad (CVV) no es correcto.',
        gatewayMessage: rejectedMessage,
        cardBrand: brand,
        cardLast4: last4,
      };
    }
    if (!test.approved) {
      return {
        approved: false,
        payerMessage: 'Tarjeta rechazada por el emisor.',
        gatewayMessage: rejectedMessage,
        cardBrand: brand,
        cardLast4: last4,
      };
    }
    return {
      approved: true,
      authorizationCode: authorizationCode(),
      cardType: cardType(test.kind, request.installments),
      cardBrand: brand,
      cardLast4: last4,
      cardToken: cardTokenFor(test.number),
    };
  },
};
