// Transbank's Oneclick Mall through the official `transbank-sdk` (issue 33): the calls Cobro makes, typed with
// the fields it reads. Loaded on first use only, like Webpay Plus (decision 240: the SDK is about 100 modules).
// Inscriptions: `start` gives the page where the payer registers the card, `finish` gives the card's `tbk_user`,
// `remove` deletes it. Transactions: `authorize` charges a stored card under one child store, `status` reads a
// charge by its buy order (a lost answer, decision 500), `refund` gives (part of) it back.
import { Oneclick, Options, TransactionDetail } from 'transbank-sdk';
import { minorAsJsonNumber } from '../money/json-number.ts';
import type { WebpayDetail } from './webpay-types.ts';

export interface OneclickKeys {
  readonly commerceCode: string;
  readonly childCommerceCode: string;
  readonly apiKey: string;
  readonly environmentUrl: string;
}

interface InscriptionFinish {
  readonly response_code?: number;
  readonly tbk_user?: string | null;
  readonly authorization_code?: string | null;
  readonly card_type?: string | null;
  readonly card_number?: string | null;
}

/** One child charge of Transbank's authorize and status answers (the same fields as Webpay Plus's detail). */
export interface OneclickDetail extends WebpayDetail {
  readonly commerce_code?: string;
  readonly buy_order?: string;
}

interface OneclickAnswer {
  readonly buy_order?: string;
  readonly card_detail?: { readonly card_number?: string | null } | null;
  readonly details?: readonly OneclickDetail[];
}

interface OneclickRefundAnswer {
  readonly type?: string;
  readonly authorization_code?: string;
  readonly response_code?: number;
  /** What a NULLIFIED refund gave back, as Transbank wrote it (read exactly, decision 989). */
  readonly nullified_amount?: unknown;
  readonly balance?: number;
}

interface OneclickCharge {
  readonly username: string;
  readonly tbkUser: string;
  readonly buyOrder: string;
  readonly childBuyOrder: string;
  readonly amountMinor: bigint;
}

export interface OneclickMall {
  start(
    username: string,
    email: string,
    responseUrl: string,
  ): Promise<{ token: string; url: string }>;
  finish(token: string): Promise<InscriptionFinish>;
  remove(tbkUser: string, username: string): Promise<void>;
  authorize(charge: OneclickCharge): Promise<OneclickAnswer>;
  status(buyOrder: string): Promise<OneclickAnswer>;
  /** Under `childCommerceCode`, the store that made the charge (decision 960). */
  refund(
    buyOrder: string,
    childCommerceCode: string,
    childBuyOrder: string,
    amountMinor: bigint,
  ): Promise<OneclickRefundAnswer>;
}

export function oneclickMall(keys: OneclickKeys, timeoutMs: number): OneclickMall {
  const options = new Options(keys.commerceCode, keys.apiKey, keys.environmentUrl, timeoutMs);
  const inscription = new Oneclick.MallInscription(options);
  const tx = new Oneclick.MallTransaction(options);
  return {
    async start(username, email, responseUrl) {
      const answer = (await inscription.start(username, email, responseUrl)) as {
        token: string;
        url_webpay: string;
      };
      return { token: answer.token, url: answer.url_webpay };
    },
    finish: async (token) => (await inscription.finish(token)) as InscriptionFinish,
    async remove(tbkUser, username) {
      await inscription.delete(tbkUser, username);
    },
    authorize: async (c) =>
      (await tx.authorize(c.username, c.tbkUser, c.buyOrder, [
        new TransactionDetail(
          minorAsJsonNumber(c.amountMinor),
          keys.childCommerceCode,
          c.childBuyOrder,
          0,
        ),
      ])) as OneclickAnswer,
    status: async (buyOrder) => (await tx.status(buyOrder)) as OneclickAnswer,
    refund: async (buyOrder, childCommerceCode, childBuyOrder, amountMinor) =>
      (await tx.refund(
        buyOrder,
        childCommerceCode,
        childBuyOrder,
        minorAsJsonNumber(amountMinor),
      )) as OneclickRefundAnswer,
  };
}
