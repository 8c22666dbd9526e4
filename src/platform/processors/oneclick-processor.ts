// Stored cards in production through Transbank's Oneclick Mall (issue 33). An account with Oneclick keys charges
// its subscriptions' cards here and refunds those charges here; everything else stays with its other processor
// (`withOneclick`). The card's `tbk_user` and the Oneclick username travel sealed under COBRO_SECRET_KEY as the
// card's processor token, so the database never holds them in clear. A charge is recorded before its authorize
// and a retry of it asks Transbank's status first (decision 500): a lost answer never charges a card twice.
import type { AppContext } from '../context.ts';
import { transactionLimits } from '../../limits/index.ts';
import {
  approvedChargeFor,
  findChargeRecord,
  recordChargeAnswer,
  recordChargeSent,
} from './oneclick-charges.ts';
import type { OneclickDetail, OneclickMall } from './oneclick-mall.ts';
import { oneclickKeys } from './oneclick-settings.ts';
import type { ChargeOutcome, RefundOutcome, RefundRequest, StoredCardCharge } from './processor.ts';
import { refundAlreadyApplied, transbankMessage, transbankRefundOutcome } from './webpay-refund.ts';
import { refusedByTransbank } from './transbank-failure.ts';

const tokenPrefix = 'oneclick:';
const rejectedMessage = 'Rechazo de transacción.';

/** What a card enrolled through Oneclick keeps, sealed in `su_cards.processor_token`. */
interface StoredOneclickCard {
  readonly username: string;
  readonly tbkUser: string;
  readonly brand: string;
  readonly last4: string;
}

export function sealCardToken(ctx: AppContext, card: StoredOneclickCard): string {
  return `${tokenPrefix}${ctx.secrets.seal(JSON.stringify(card))}`;
}

export function openCardToken(ctx: AppContext, token: string): StoredOneclickCard | null {
  if (!token.startsWith(tokenPrefix)) return null;
  return JSON.parse(ctx.secrets.open(token.slice(tokenPrefix.length))) as StoredOneclickCard;
}

function outcomeOf(detail: OneclickDetail | undefined, card: StoredOneclickCard): ChargeOutcome {
  if (detail?.response_code === 0 && detail.status === 'AUTHORIZED') {
    return {
      approved: true,
      authorizationCode: String(detail.authorization_code ?? ''),
      cardType: detail.payment_type_code ?? null,
      cardBrand: card.brand,
      cardLast4: card.last4,
      cardToken: null,
    };
  }
  return {
    approved: false,
    payerMessage: `Transbank rechazó el cargo (código ${detail?.response_code ?? 'sin código'}).`,
    gatewayMessage: rejectedMessage,
    cardBrand: card.brand,
    cardLast4: card.last4,
  };
}

export interface OneclickProcessor {
  readonly mall: OneclickMall;
  chargeStoredCard(request: StoredCardCharge): Promise<ChargeOutcome>;
  /** Null when the charge was not Oneclick's. */
  refund(request: RefundRequest): Promise<RefundOutcome | null>;
}

/** What the charge and refund calls need: the account, its child store and the SDK's client. */
interface OneclickScope {
  readonly ctx: AppContext;
  readonly accountId: string;
  readonly childCommerceCode: string;
  readonly mall: OneclickMall;
}

/** Asks Transbank what became of an authorize that may have been sent: null when it has no such charge. */
async function decided(
  mall: OneclickMall,
  buyOrder: string,
  card: StoredOneclickCard,
): Promise<ChargeOutcome | null> {
  try {
    return outcomeOf((await mall.status(buyOrder)).details?.[0], card);
  } catch (error) {
    if (refusedByTransbank(error, 404)) return null;
    throw error;
  }
}

async function authorize(
  s: OneclickScope,
  card: StoredOneclickCard,
  order: { buyOrder: string; childBuyOrder: string },
  amountMinor: bigint,
): Promise<ChargeOutcome> {
  try {
    const answer = await s.mall.authorize({
      username: card.username,
      tbkUser: card.tbkUser,
      ...order,
      amountMinor,
    });
    return outcomeOf(answer.details?.[0], card);
  } catch (error) {
    // Refused (4xx): nothing was charged. No answer (timeout, network, 5xx): it may have been, and the record
    // stays `sent` so that the retry asks the status first.
    if (!refusedByTransbank(error)) throw error;
    return {
      approved: false,
      payerMessage: `Transbank rechazó el cargo: ${transbankMessage(error)}`,
      gatewayMessage: rejectedMessage,
      cardBrand: card.brand,
      cardLast4: card.last4,
    };
  }
}

async function chargeStoredCard(
  s: OneclickScope,
  request: StoredCardCharge,
): Promise<ChargeOutcome> {
  const card = openCardToken(s.ctx, request.cardToken);
  if (card === null)
    return {
      approved: false,
      payerMessage: 'Tarjeta guardada desconocida.',
      gatewayMessage: rejectedMessage,
      cardBrand: null,
      cardLast4: null,
    };
  const key = request.idempotencyKey;
  const at = s.ctx.clock.now();
  const previous = await findChargeRecord(s.ctx.db, key);
  const order = previous ?? { buyOrder: key, childBuyOrder: `${key}c` };
  if (previous !== undefined) {
    const known = await decided(s.mall, previous.buyOrder, card);
    if (known !== null) {
      await recordChargeAnswer(s.ctx.db, key, known.approved ? 'approved' : 'declined', at);
      return known;
    }
  }
  // A first authorize, or one Transbank proved it never received (a new charge then): made only if still wanted,
  // asked as late as can be, right before the charge is recorded and sent (decisions 750 and 825).
  const unwanted = (await request.unsentReason?.()) ?? null;
  if (unwanted !== null) {
    if (previous !== undefined) await recordChargeAnswer(s.ctx.db, key, 'declined', at);
    return {
      approved: false,
      payerMessage: unwanted,
      gatewayMessage: unwanted,
      cardBrand: card.brand,
      cardLast4: card.last4,
    };
  }
  if (previous === undefined)
    await recordChargeSent(s.ctx.db, {
      idempotencyKey: key,
      accountId: s.accountId,
      ...order,
      childCommerceCode: s.childCommerceCode,
      amountMinor: request.amountMinor,
      at,
    });
  let outcome = await authorize(s, card, order, request.amountMinor);
  // A resend Transbank refused may have met the first authorize of this buy order, still being decided when the
  // status said 404 and made since (its duplicate): what Transbank holds decides, never the refusal (decision 960).
  if (previous !== undefined && !outcome.approved)
    outcome = (await decided(s.mall, order.buyOrder, card)) ?? outcome;
  await recordChargeAnswer(s.ctx.db, key, outcome.approved ? 'approved' : 'declined', at);
  return outcome;
}

async function refund(s: OneclickScope, request: RefundRequest): Promise<RefundOutcome | null> {
  if (request.transactionId === undefined) return null;
  const charge = await approvedChargeFor(s.ctx.db, request.transactionId);
  if (charge === undefined) return null;
  if (request.retry !== undefined) {
    const detail = (await s.mall.status(charge.buyOrder)).details?.[0] ?? {};
    if (refundAlreadyApplied(detail, request.amountMinor, request.retry))
      return { approved: true, refundCode: `reconciled:${charge.buyOrder}` };
  }
  let answer: Awaited<ReturnType<OneclickMall['refund']>>;
  try {
    // The store that made the charge, not the one the account's keys name now (decision 960).
    answer = await s.mall.refund(
      charge.buyOrder,
      charge.childCommerceCode,
      charge.childBuyOrder,
      request.amountMinor,
    );
  } catch (error) {
    if (refusedByTransbank(error))
      return { approved: false, gatewayMessage: transbankMessage(error) };
    throw error;
  }
  return transbankRefundOutcome(
    answer,
    request.amountMinor,
    async () => (await s.mall.status(charge.buyOrder)).details?.[0] ?? {},
    { label: 'Oneclick', code: charge.buyOrder },
  );
}

/** The account's Oneclick Mall processor, or null when it has no Oneclick keys. */
export async function oneclickForAccount(
  ctx: AppContext,
  accountId: string,
): Promise<OneclickProcessor | null> {
  const keys = await oneclickKeys(ctx, accountId);
  if (keys === null) return null;
  const { oneclickMall } = await import('./oneclick-mall.ts');
  const scope: OneclickScope = {
    ctx,
    accountId,
    childCommerceCode: keys.childCommerceCode,
    mall: oneclickMall(keys, transactionLimits.acquirer.requestTimeoutMs),
  };
  return {
    mall: scope.mall,
    chargeStoredCard: (request) => chargeStoredCard(scope, request),
    refund: (request) => refund(scope, request),
  };
}
