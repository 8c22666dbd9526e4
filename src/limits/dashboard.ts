// The merchant dashboard's bounds (src/dashboard/): sessions, sign-in tries, forms and pages.
import { dayMs, hourMs } from './units.ts';

export const dashboardLimits = {
  /** A dashboard session lasts this long from sign-in at most, however busy; signing out or rotating the tokens ends it sooner. */
  sessionMs: 12 * hourMs,
  /** A dashboard session left unused this long ends (decision 1090): each request moves its end this far ahead. */
  sessionIdleMs: hourMs,
  /** A session's end is written again only once it moved this much: one write a minute per busy session at most. */
  sessionTouchMs: 60_000,
  /** The largest form the dashboard accepts (sign-in, resend, clock). */
  formBytesMax: 8 * 1024,
  /** Rows on one page of a dashboard list. */
  rowsPerPage: 25,
  /** The highest page number a dashboard list opens. */
  pageNumberMax: 10_000,
  /** A search text (order or email) and a token typed into the sign-in form. */
  searchLengthMax: 255,
  tokenLengthMax: 200,
  /** Callbacks and attempts shown on one transaction's timeline. */
  timelineCallbacksMax: 20,
  timelineAttemptsMax: 500,
  /** Disputes listed under the wallet page's chargeback debt, newest first (decision 1015); the rest are counted. */
  debtDisputesMax: 25,
  /** Days the home page's charts cover, ending today. */
  chartDays: 30,
  /** Sign-in forms one client address may post in a minute (the tokens are long and random; this keeps the log quiet). */
  signInsPerMinute: 30,
  /**
   * Sign-in posts naming one e-mail in a minute, from every address together (decision 1090): what bounds guessing
   * one user's password, or its second factor's code, from many addresses. Below the per-address limit, so one
   * address alone can spend it; a browser with the user's device cookie is not counted here (decision 1185), so the
   * user is not locked out by someone else's guesses.
   */
  signInsPerUserPerMinute: 10,
  /**
   * Sign-in posts with one device cookie naming the e-mail's user in a minute (decision 1185), counted instead of the
   * per-user limit: a stolen device cookie guesses no faster than the e-mail alone.
   */
  signInsPerDevicePerMinute: 10,
  /** A device cookie is honoured this long after the sign-in that gave it; each sign-in gives a new one. */
  deviceCookieMs: 30 * dayMs,
} as const;
