// The matching half of `cobro fintoc reconcile` (reconcile.ts), apart from the database: the account's Fintoc
// movements against the movements Cobro expects. Fintoc's Movement object (docs.fintoc.com, "The Movement object")
// names what moved the money in `resource_id`, signs its unsigned `amount` by `direction`, and for a reversal pair
// (a `transfer_return` and the payment it reverses) names the other movement in `return_pair_id` (decision 865).
// A movement matches only of its expected amount and currency; one whose amount is not an integer is reported
// (decision 965).
import { unsignedMinorOf } from '../../platform/money/exact-minor.ts';

export type FindingKind =
  | 'unmatched_movement'
  | 'missing_movement'
  | 'unresolved_transfer'
  | 'unresolved_refund'
  /** A transfer result Fintoc reported for another amount or currency than its payout's, not applied (decision 992). */
  | 'transfer_mismatch';

export interface Finding {
  readonly kind: FindingKind;
  /** The movement's id (unmatched) or the payout or transaction id (missing). */
  readonly subject: string;
  readonly amountMinor: bigint;
  readonly currency: string;
  readonly detail: string;
}

/** One movement Cobro expects at Fintoc. */
export interface Expected {
  /** The payout or sale a finding names. */
  readonly subject: string;
  /** The movement's own name: a returned transfer expects two of one subject, its payment and its return. */
  readonly leg: string;
  readonly keys: readonly string[];
  readonly amountMinor: bigint;
  readonly currency: string;
  readonly at: Date;
  readonly what: string;
}

/** A movement as Fintoc's client hands it over, read field by field. */
export type Movement = Record<string, unknown>;

const resourceOf = (m: Movement | undefined): string[] =>
  typeof m?.resource_id === 'string' && m.resource_id !== '' ? [m.resource_id] : [];

/**
 * What a movement names: the transfer or payment intent in its `resource_id`, and for one of a reversal pair also
 * what the movement it reverses or is reversed by (`return_pair_id`) names.
 */
function keysOf(m: Movement, byId: ReadonlyMap<string, Movement>): string[] {
  const pair = typeof m.return_pair_id === 'string' ? byId.get(m.return_pair_id) : undefined;
  return [...resourceOf(m), ...resourceOf(pair)];
}

/**
 * A movement's amount signed as Cobro's ledger sees it (money out of the account negative), or null when Fintoc's
 * unsigned `amount` is not an exact integer (decision 965): reported, never a crash of the whole run.
 */
function signedAmountOf(m: Movement): bigint | null {
  const amount = unsignedMinorOf(m.amount);
  if (amount === null) return null;
  return m.direction === 'outbound' ? -amount : amount;
}

/**
 * Matches each movement with the expected movement it names, of its direction and amount; `seen` holds the legs
 * matched. A movement naming a payout or sale whose legs are all matched, or that differs from them, is reported.
 */
export function matchMovements(
  movements: readonly Movement[],
  expected: readonly Expected[],
): { seen: Set<string>; findings: Finding[] } {
  const byKey = new Map<string, Expected[]>();
  for (const e of expected)
    for (const k of new Set(e.keys)) byKey.set(k, [...(byKey.get(k) ?? []), e]);
  const byId = new Map(movements.map((m) => [String(m.id), m]));
  const seen = new Set<string>();
  const findings: Finding[] = [];
  for (const m of movements) {
    const named = [...new Set(keysOf(m, byId).flatMap((k) => byKey.get(k) ?? []))];
    const currency = String(m.currency ?? '');
    const signed = signedAmountOf(m);
    if (signed === null) {
      findings.push({
        kind: 'unmatched_movement',
        subject: String(m.id),
        amountMinor: 0n,
        currency,
        detail: `amount ${JSON.stringify(m.amount) ?? 'absent'} is not an integer of minor units`,
      });
      continue;
    }
    const amountMinor = signed;
    const sameWay = named.filter((e) => e.amountMinor < 0n === amountMinor < 0n);
    const equal = sameWay.filter((e) => e.amountMinor === amountMinor && e.currency === currency);
    const hit = equal.find((e) => !seen.has(e.leg)) ?? equal[0] ?? sameWay[0] ?? named[0];
    const matches =
      hit !== undefined && amountMinor === hit.amountMinor && currency === hit.currency;
    // A second movement of one payout, return or sale is money that moved twice (decision 645), never a match.
    if (matches && !seen.has(hit.leg)) {
      seen.add(hit.leg);
      continue;
    }
    findings.push({
      kind: 'unmatched_movement',
      subject: String(m.id),
      amountMinor,
      currency,
      detail:
        hit === undefined
          ? 'no payout, withdrawal or sale of Cobro'
          : matches
            ? `a second movement of ${hit.what} ${hit.subject}`
            : amountMinor === hit.amountMinor
              ? `currency ${currency} differs from ${hit.what} ${hit.subject} (${hit.currency})`
              : `amount differs from ${hit.what} ${hit.subject}`,
    });
  }
  return { seen, findings };
}

/**
 * The expected movements still absent at `windowStartMs`: one finding a subject (kept once per subject), so a
 * returned payout missing both its payment and its return says both in one line.
 */
export function missingOf(
  expected: readonly Expected[],
  seen: ReadonlySet<string>,
  windowStartMs: number,
): Finding[] {
  const missing = new Map<string, Finding>();
  for (const e of expected) {
    if (seen.has(e.leg) || e.at.getTime() > windowStartMs) continue;
    const before = missing.get(e.subject);
    missing.set(
      e.subject,
      before === undefined
        ? {
            kind: 'missing_movement',
            subject: e.subject,
            amountMinor: e.amountMinor,
            currency: e.currency,
            detail: `${e.what} with no Fintoc movement`,
          }
        : { ...before, detail: `${before.detail}, nor its return` },
    );
  }
  return [...missing.values()];
}
