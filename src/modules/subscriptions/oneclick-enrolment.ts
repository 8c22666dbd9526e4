// Card enrolment in production through Transbank's Oneclick Mall (issue 33, decision 500): the payer leaves the
// enrolment page for Transbank's, registers the card there, and comes back to Cobro's return URL with TBK_TOKEN;
// Cobro then finishes the inscription and keeps the card's `tbk_user` sealed, with the card type and last four
// digits Transbank answered. No verification charge: Transbank checks the card on its own page.
import type { AppContext } from '../../platform/context.ts';
import { enrolStoredCard, type EnrolOutcome } from './enrolment.ts';

export const oneclickReturnPath = '/gateway/oneclick/return';

export type OneclickStart =
  | { readonly kind: 'redirect'; readonly url: string; readonly token: string }
  | { readonly kind: 'unavailable' }
  | { readonly kind: 'not_configured' };

async function processorOf(ctx: AppContext, accountId: string) {
  const { oneclickForAccount } = await import('../../platform/processors/oneclick-processor.ts');
  return oneclickForAccount(ctx, accountId);
}

/** Starts an inscription for the enrolment link `enrolmentToken`: the page the payer continues to. */
export async function startOneclickEnrolment(
  ctx: AppContext,
  link: { readonly token: string; readonly accountId: string; readonly subscriptionId: string },
): Promise<OneclickStart> {
  const oneclick = await processorOf(ctx, link.accountId);
  if (oneclick === null) return { kind: 'not_configured' };
  // The subscription's client is the Oneclick user: its id the username, its email Transbank's.
  const client = await ctx.db
    .selectFrom('su_subscriptions as s')
    .innerJoin('su_clients as c', 'c.id', 's.client_id')
    .select(['c.id', 'c.email'])
    .where('s.id', '=', link.subscriptionId)
    .executeTakeFirstOrThrow();
  let started: { token: string; url: string };
  try {
    started = await oneclick.mall.start(
      client.id,
      client.email,
      `${ctx.config.publicBaseUrl}${oneclickReturnPath}`,
    );
  } catch (error) {
    ctx.logger.warn({ err: error, enrolment: link.token }, 'Oneclick unreachable at an enrolment');
    return { kind: 'unavailable' };
  }
  await ctx.db
    .insertInto('oneclick_inscriptions')
    .values({
      token: started.token,
      enrolment_token: link.token,
      account_id: link.accountId,
      username: client.id,
      state: 'started',
      created_at: ctx.clock.now(),
    })
    .execute();
  return { kind: 'redirect', ...started };
}

export type OneclickFinish =
  | EnrolOutcome
  | { readonly kind: 'failed'; readonly payerMessage: string };

/** The enrolment link an inscription token belongs to, or undefined when Cobro started no such inscription. */
export async function inscriptionOf(ctx: AppContext, tbkToken: string) {
  return ctx.db
    .selectFrom('oneclick_inscriptions as i')
    .innerJoin('su_enrolments as e', 'e.token', 'i.enrolment_token')
    .select(['i.state', 'i.account_id', 'i.username', 'e.token', 'e.validacion'])
    .where('i.token', '=', tbkToken)
    .executeTakeFirst();
}

/** Finishes the inscription `tbkToken` once (a reload finds it finished) and records the card it registered. */
export async function finishOneclickEnrolment(
  ctx: AppContext,
  tbkToken: string,
): Promise<OneclickFinish> {
  const claimed = await ctx.db
    .updateTable('oneclick_inscriptions')
    .set({ state: 'failed' })
    .where('token', '=', tbkToken)
    .where('state', '=', 'started')
    .returning(['enrolment_token', 'account_id', 'username'])
    .executeTakeFirst();
  if (claimed === undefined) {
    const known = await inscriptionOf(ctx, tbkToken);
    return known?.state === 'finished'
      ? { kind: 'enrolled' }
      : { kind: 'failed', payerMessage: 'La inscripción no se completó. Inténtalo de nuevo.' };
  }
  const oneclick = await processorOf(ctx, claimed.account_id);
  if (oneclick === null) return { kind: 'closed' };
  let answer;
  try {
    answer = await oneclick.mall.finish(tbkToken);
  } catch (error) {
    if (!(error instanceof Error && /status code 4\d\d/.test(error.message))) {
      // No answer: the card may be registered. The inscription is open again so that a reload finishes it.
      await ctx.db
        .updateTable('oneclick_inscriptions')
        .set({ state: 'started' })
        .where('token', '=', tbkToken)
        .execute();
      throw error;
    }
    answer = {};
  }
  const digits = (answer.card_number ?? '').replace(/\D/g, '');
  if (answer.response_code !== 0 || !answer.tbk_user || digits.length < 4)
    return {
      kind: 'failed',
      payerMessage: `Transbank no registró la tarjeta (código ${answer.response_code ?? 'sin código'}). Puedes intentarlo de nuevo.`,
    };
  const { sealCardToken } = await import('../../platform/processors/oneclick-processor.ts');
  const card = { brand: answer.card_type ?? 'Otra', last4: digits.slice(-4) };
  const token = sealCardToken(ctx, {
    username: claimed.username,
    tbkUser: answer.tbk_user,
    ...card,
  });
  const enrolled = await enrolStoredCard(ctx, claimed.enrolment_token, { token, ...card });
  // A card Cobro does not keep (another tab's inscription won the link, or the subscription ended meanwhile) is
  // deleted at Transbank, so no registration stays there that no card of Cobro's names (decision 960).
  if (!enrolled.kept) await removeOneclickCard(ctx, claimed.account_id, token);
  await ctx.db
    .updateTable('oneclick_inscriptions')
    .set({ state: 'finished' })
    .where('token', '=', tbkToken)
    .execute();
  return enrolled.outcome;
}

/** Deletes a removed card's inscription at Transbank; a card enrolled otherwise is left alone. */
async function removeOneclickCard(
  ctx: AppContext,
  accountId: string,
  processorToken: string,
): Promise<void> {
  const { openCardToken } = await import('../../platform/processors/oneclick-processor.ts');
  const card = openCardToken(ctx, processorToken);
  const oneclick = card === null ? null : await processorOf(ctx, accountId);
  if (card === null || oneclick === null) return;
  try {
    await oneclick.mall.remove(card.tbkUser, card.username);
  } catch (error) {
    // Cobro never charges a removed card again; the inscription left at Transbank is logged for the operator.
    ctx.logger.error({ err: error, account: accountId }, 'Oneclick inscription delete failed');
  }
}
