// Events (seed "Event"): create and query, with beneficiaries, distribution and the totals of paid sales.
import assert from 'node:assert/strict';
import type { AppContext } from '../../platform/context.ts';
import { notFound, ruleFailure, type RuleFailure } from '../../platform/errors/errors.ts';
import { newId, randomHex } from '../../platform/ids/ids.ts';
import { formatBps, formatMinorTwoDecimals } from '../../platform/money/percent.ts';
import {
  minorAsExactInteger,
  minorAsJsonNumber,
  type ExactInteger,
} from '../../platform/money/json-number.ts';
import { formatDate, formatTimestamp } from '../../platform/time/time-format.ts';
import { parseBeneficiaries, parseEventCode, parseEventDates } from './input.ts';
import {
  eventBeneficiaries,
  eventSalesTotals,
  findEventByCode,
  type EventRow,
} from './repository.ts';
import type { EventCreate } from './schemas.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';

/** An event's sums of paid sales: exact past 2^53 - 1, which 91 sales of the largest amount pass (decision 720). */
function paymentTotal(minor: bigint): ExactInteger {
  assert.ok(minor >= 0n, 'payment totals are never negative');
  return minorAsExactInteger(minor);
}

async function eventView(ctx: AppContext, row: EventRow) {
  const zone = ctx.config.timeZone;
  const people = await eventBeneficiaries(ctx.db, row.id);
  const renderDay = (at: Date, timed: boolean) =>
    timed ? formatTimestamp(at, zone) : formatDate(at, zone);
  return {
    fields: {
      id: row.code,
      event: row.name,
      date_event: renderDay(row.date_event_at, row.date_event_timed),
      date_payment: renderDay(row.date_payment_at, row.date_payment_timed),
      date_closing_sales: formatTimestamp(row.closing_sales_at, zone),
      url_logo: row.url_logo ?? '',
      url_event: row.url_event ?? '',
      distribution: {
        affiliate: formatBps(people.reduce((sum, b) => sum + b.bps, 0)),
        service_sale: formatMinorTwoDecimals(row.service_sale_minor),
      },
    },
    beneficiaries: people.map((b) => ({
      id: b.id,
      email: b.email,
      percent: formatBps(b.bps),
      status: b.status,
    })),
  };
}

export async function createEvent(ctx: AppContext, accountId: string, body: EventCreate) {
  const code = parseEventCode(body.event);
  const dates = parseEventDates(body, ctx.config.timeZone);
  const people = parseBeneficiaries(body);
  const id = newId('ev', 18);
  const created = await inTransaction(ctx.db, async (tx) => {
    const inserted = await tx
      .insertInto('events')
      .values({
        id,
        account_id: accountId,
        code,
        name: body.name,
        date_event_at: dates.eventAt,
        date_event_timed: dates.eventTimed,
        date_payment_at: dates.paymentAt,
        date_payment_timed: dates.paymentTimed,
        closing_sales_at: dates.closingAt,
        url_event: body.url_event ?? null,
        url_logo: body.url_logo ?? null,
        service_sale_minor: BigInt(body.service_sale ?? 0),
        currency: null,
        payout_status: 'scheduled',
        created_at: ctx.clock.now(),
      })
      .onConflict((oc) => oc.columns(['account_id', 'code']).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (inserted === undefined) return false;
    if (people.length > 0) {
      await tx
        .insertInto('event_beneficiaries')
        .values(
          people.map((p, position) => ({
            id: randomHex(10),
            event_id: id,
            position,
            email: p.email,
            bps: p.bps,
            status: 'pending' as const,
            paid_minor: 0n,
            paid_at: null,
          })),
        )
        .execute();
    }
    return true;
  });
  if (!created) return ruleFailure('duplicate_event', { event: code }) satisfies RuleFailure;
  const row = await findEventByCode(ctx.db, accountId, code);
  assert.ok(row !== undefined, 'the event just created is there');
  const view = await eventView(ctx, row);
  return { status: 'success' as const, ...view.fields, affiliation: view.beneficiaries };
}

/** The event by the merchant's own identifier; paymentData appears once a sale has been paid (decision 044). */
export async function getEvent(ctx: AppContext, accountId: string, code: string) {
  // Trimmed as POST /api/event stores it (parseEventCode): the code as sent finds it (decision 845).
  const row = await findEventByCode(ctx.db, accountId, code.trim());
  if (row === undefined) throw notFound('event');
  const view = await eventView(ctx, row);
  const totals = await eventSalesTotals(ctx.db, row.id);
  return {
    ...view.fields,
    affiliations: view.beneficiaries,
    ...(totals.count === 0n
      ? {}
      : {
          paymentData: {
            count: minorAsJsonNumber(totals.count),
            amount_general: paymentTotal(totals.grossMinor),
            amount_affiliate: paymentTotal(totals.affiliateMinor),
            fee: paymentTotal(totals.feeMinor),
            balance: paymentTotal(totals.balanceMinor),
          },
        }),
  };
}
