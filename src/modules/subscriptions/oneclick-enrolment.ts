// Card enrolment in production through Transbank's Oneclick Mall (issue 33, decision 500): the payer leaves the
// enrolment page for Transbank's, registers the card there, and comes back to Cobro's return URL with TBK_TOKEN;
// Cobro then finishes the inscription and keeps the card's `tbk_user` sealed, with the card type and last four
// digits Transbank answered. No verification charge: Transbank checks the card on its own page.
import type { AppContext } from '../../platform/context.ts';
import { subscriptionLimits } from '../../limits/index.ts';
import { enrolStoredCard, type EnrolOutcome } from './enrolment.ts';
import { refusedByTransbank } from '../../platform/processors/transbank-failure.ts';

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
      lease_until: null,
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

const notCompleted = 'La inscripción no se completó. Inténtalo de nuevo.';

async function setInscription(
  ctx: AppContext,
  tbkToken: string,
  state: 'started' | 'finished' | 'failed',
): Promise<void> {
  await ctx.db
    .updateTable('oneclick_inscriptions')
    .set({ state, lease_until: null })
    .where('token', '=', tbkToken)
    .execute();
}

/** Takes the inscription to finish it: one not finished yet, or one whose finisher's lease ran out (it died). */
async function claimInscription(ctx: AppContext, tbkToken: string) {
  const now = ctx.clock.now();
  return ctx.db
    .updateTable('oneclick_inscriptions')
    .set({
      state: 'finishing',
      lease_until: new Date(now.getTime() + subscriptionLimits.inscriptionFinishLeaseMs),
    })
    .where('token', '=', tbkToken)
    .where((eb) =>
      eb.or([
        eb('state', '=', 'started'),
        eb.and([eb('state', '=', 'finishing'), eb('lease_until', '<=', now)]),
      ]),
    )
    .returning(['enrolment_token', 'account_id', 'username'])
    .executeTakeFirst();
}

/**
 * Finishes the inscription `tbkToken` once (a reload finds it finished) and records the card it registered. A
 * second return of the same token while the first one is at Transbank (a double submit) waits for its outcome and
 * shows it, rather than a failure (decision 990); past the wait it shows the enrolment as in progress.
 */
export async function finishOneclickEnrolment(
  ctx: AppContext,
  tbkToken: string,
): Promise<OneclickFinish> {
  for (let round = 0; round < subscriptionLimits.inscriptionWaitRoundsMax; round++) {
    const claimed = await claimInscription(ctx, tbkToken);
    if (claimed !== undefined) return finishClaimed(ctx, tbkToken, claimed);
    const known = await inscriptionOf(ctx, tbkToken);
    if (known?.state === 'finished') return { kind: 'enrolled' };
    if (known?.state !== 'finishing') return { kind: 'failed', payerMessage: notCompleted };
    await new Promise((resolve) => {
      setTimeout(resolve, subscriptionLimits.inscriptionWaitStepMs);
    });
  }
  return { kind: 'in_progress' };
}

async function finishClaimed(
  ctx: AppContext,
  tbkToken: string,
  claimed: { enrolment_token: string; account_id: string; username: string },
): Promise<OneclickFinish> {
  const oneclick = await processorOf(ctx, claimed.account_id);
  if (oneclick === null) {
    await setInscription(ctx, tbkToken, 'failed');
    return { kind: 'closed' };
  }
  let answer;
  try {
    answer = await oneclick.mall.finish(tbkToken);
  } catch (error) {
    if (!refusedByTransbank(error)) {
      // No answer: the card may be registered. The inscription is open again so that a reload finishes it.
      await setInscription(ctx, tbkToken, 'started');
      throw error;
    }
    answer = {};
  }
  const digits = (answer.card_number ?? '').replace(/\D/g, '');
  if (answer.response_code !== 0 || !answer.tbk_user || digits.length < 4) {
    await setInscription(ctx, tbkToken, 'failed');
    return {
      kind: 'failed',
      payerMessage: `Transbank no registró la tarjeta (código ${answer.response_code ?? 'sin código'}). Puedes intentarlo de nuevo.`,
    };
  }
  const { sealCardToken } = await import('../../platform/processors/oneclick-processor.ts');
  const card = { brand: answer.card_type ?? 'Otra', last4: digits.slice(-4) };
  const token = sealCardToken(ctx, {
    username: claimed.username,
    tbkUser: answer.tbk_user,
    ...card,
  });
  const enrolled = await enrolStoredCard(ctx, claimed.enrolment_token, { token, ...card });
  // A card Cobro does not keep (another tab's inscription won the link, or the subscription ended meanwhile) is
  // deleted at Transbank, so no registration stays there that no card of Cobro's names (decision 960); unless the
  // link's card is this very registration (a reload took this return's inscription over, decision 990).
  if (!enrolled.kept && (await linkCardTbkUser(ctx, claimed.enrolment_token)) !== answer.tbk_user)
    await removeOneclickCard(ctx, claimed.account_id, token);
  await setInscription(ctx, tbkToken, 'finished');
  return enrolled.outcome;
}

/** The `tbk_user` of the card the enrolment link recorded, if any. */
async function linkCardTbkUser(ctx: AppContext, enrolmentToken: string) {
  const row = await ctx.db
    .selectFrom('su_enrolments as e')
    .innerJoin('su_cards as c', 'c.id', 'e.card_id')
    .select('c.processor_token')
    .where('e.token', '=', enrolmentToken)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  const { openCardToken } = await import('../../platform/processors/oneclick-processor.ts');
  return openCardToken(ctx, row.processor_token)?.tbkUser;
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
