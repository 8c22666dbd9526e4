// Reads the event's dates and beneficiaries the ways merchants send them (reference §6.1, decision 043):
// dates with or without a time (or as an ISO-8601 instant with its zone), beneficiaries as objects or as [email, percent] pairs.
import { validationError } from '../../platform/errors/errors.ts';
import { bpsPerWhole, formatBps } from '../../platform/money/percent.ts';
import { percentAt } from '../../platform/http/percent-at.ts';
import { parseLocal, zonedToLocalText } from '../../platform/time/time-format.ts';
import { eventLimits } from '../../limits/index.ts';
import type { EventCreate } from './schemas.ts';
import { looseTextAt } from '../../platform/http/json-body.ts';

export interface EventDates {
  readonly eventAt: Date;
  readonly eventTimed: boolean;
  readonly paymentAt: Date;
  readonly paymentTimed: boolean;
  readonly closingAt: Date;
}

export interface BeneficiaryInput {
  readonly email: string;
  readonly bps: number;
}

const dateOnly = /^\d{4}-\d{2}-\d{2}$/;
const emailShape = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The merchant's event code, trimmed as `POST /api/transaction` trims the `event` it sells, so a code sent with outer
 * spaces is stored as a sale names it. The code is the path segment of `GET /api/event/{id}`, so what no path segment
 * carries whole is refused: a `/` (escaped as `%2F`, many proxies decode or refuse it) or `\` (URL parsers read it as
 * `/`), the dot segments `.` and `..` (resolved away by every URL parser) and control characters (decision 815).
 */
export function parseEventCode(text: string): string {
  const code = text.trim();
  if (code === '') throw validationError({ event: 'is empty' });
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  if (/[/\\\u0000-\u001f\u007f]/.test(code) || code === '.' || code === '..')
    throw validationError({ event: 'invalid' });
  return code;
}

function nextDay(dateText: string): string {
  const [y, m, d] = dateText.split('-').map(Number) as [number, number, number];
  const next = new Date(Date.UTC(y, m - 1, d + 1));
  return next.toISOString().slice(0, 10);
}

/**
 * A date without a time stands for the whole day: sales may close any time that day, and payment must fall on a
 * later day. A closing date without a time closes at the end of that day.
 */
export function parseEventDates(body: EventCreate, timeZone: string): EventDates {
  const problems: Record<string, string> = {};
  const read = (field: 'date_event' | 'date_payment' | 'date_closing_sales', endOfDay: boolean) => {
    // An instant with its zone (a JS client's toISOString) is read in the service zone (decision 755).
    const text = zonedToLocalText(body[field], timeZone) ?? body[field].trim();
    const timed = !dateOnly.test(text);
    const parsed = parseLocal(timed || !endOfDay ? text : `${text} 23:59:59`, timeZone);
    // An instant past year 9999 in UTC cannot be stored or rendered (decision 790): invalid, not a 500.
    const at = parsed !== null && parsed.getTime() < eventLimits.dateInstantMsEnd ? parsed : null;
    if (at === null) problems[field] = 'invalid';
    return { text, timed, at };
  };
  const event = read('date_event', false);
  const payment = read('date_payment', false);
  const closing = read('date_closing_sales', true);
  if (event.at === null || payment.at === null || closing.at === null)
    throw validationError(problems);
  // The first instant after the event: the event's own time, or the start of the next day for a whole day.
  const eventEnd = event.timed ? event.at : parseLocal(nextDay(event.text), timeZone);
  if (eventEnd === null || eventEnd.getTime() >= eventLimits.dateInstantMsEnd)
    throw validationError({ date_event: 'invalid' });
  if (event.timed ? closing.at > eventEnd : closing.at >= eventEnd)
    problems.date_closing_sales = 'after date_event';
  if (event.timed ? payment.at <= eventEnd : payment.at < eventEnd)
    problems.date_payment = 'not after date_event';
  if (Object.keys(problems).length > 0) throw validationError(problems);
  return {
    eventAt: event.at,
    eventTimed: event.timed,
    paymentAt: payment.at,
    paymentTimed: payment.timed,
    closingAt: closing.at,
  };
}

/**
 * The event's body with its beneficiaries as `parseBeneficiaries` reads them, for the Idempotency-Key's hash (decision
 * 940): a percent `50` and `"50"`, `[email, percent]` and `{email, percent}`, are one request. Beneficiaries it
 * refuses are hashed as they came.
 */
export function eventBodyAsRead(body: EventCreate): unknown {
  try {
    const { affiliation: _a, affiliaction: _b, ...rest } = body;
    return { ...rest, beneficiaries: parseBeneficiaries(body) };
  } catch {
    return body;
  }
}

/** The beneficiaries, from `affiliation` or its misspelling `affiliaction`, checked one by one. */
export function parseBeneficiaries(body: EventCreate): BeneficiaryInput[] {
  const key = body.affiliation !== undefined ? 'affiliation' : 'affiliaction';
  const items = body.affiliation ?? body.affiliaction ?? [];
  const problems: Record<string, string> = {};
  const out: BeneficiaryInput[] = [];
  const seen = new Set<string>();
  items.forEach((item, i) => {
    let emailKey: string;
    let percentKey: string;
    if (Array.isArray(item) && item.length === 2) [emailKey, percentKey] = ['0', '1'];
    else if (item !== null && typeof item === 'object' && !Array.isArray(item))
      [emailKey, percentKey] = ['email', 'percent'];
    else {
      problems[`${key}.${i}`] = 'invalid';
      return;
    }
    const given = looseTextAt(item, emailKey);
    if (!given.ok) {
      problems[`${key}.${i}.email`] = given.problem;
      return;
    }
    const email = given.text;
    if (email.length > eventLimits.beneficiaryEmailLengthMax) {
      problems[`${key}.${i}.email`] = 'too long';
      return;
    }
    if (!emailShape.test(email)) {
      problems[`${key}.${i}.email`] = 'invalid';
      return;
    }
    if (seen.has(email.toLowerCase())) {
      problems[`${key}.${i}.email`] = 'repeated';
      return;
    }
    seen.add(email.toLowerCase());
    // The seed's "number max 6 characters" counts the percent as written (decision 1170).
    const share = percentAt(item as object, percentKey, {
      lengthMax: eventLimits.beneficiaryPercentLengthMax,
      zeroAllowed: false,
    });
    if (!share.ok) {
      problems[`${key}.${i}.percent`] = share.problem;
      return;
    }
    out.push({ email, bps: share.bps });
  });
  if (Object.keys(problems).length > 0) throw validationError(problems);
  const totalBps = out.reduce((sum, b) => sum + b.bps, 0);
  if (totalBps > bpsPerWhole)
    throw validationError({ [key]: `percents add up to ${formatBps(totalBps)}, more than 100.00` });
  return out;
}
