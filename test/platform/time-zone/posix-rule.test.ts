// The POSIX TZ strings TZif footers carry (RFC 8536 §3.3), parsed and evaluated by our code (decision 380).
import { describe, expect, it } from 'vitest';
import { parsePosixRule, posixOffsetSecAt } from '../../../src/platform/time-zone/posix-rule.ts';

const sec = (iso: string) => Date.parse(iso) / 1000;
const h = 3600;

describe('POSIX TZ rules', () => {
  it('keeps standard time all year when the rule names no daylight time', () => {
    expect(parsePosixRule('UTC0')).toEqual({ stdOffsetSec: 0, dst: null });
    expect(parsePosixRule('IST-5:30')).toEqual({ stdOffsetSec: 5.5 * h, dst: null });
    expect(parsePosixRule('<+0545>-5:45')).toEqual({ stdOffsetSec: 5.75 * h, dst: null });
  });

  it('evaluates a northern rule (Madrid: last Sundays of March and October)', () => {
    const rule = parsePosixRule('CET-1CEST,M3.5.0,M10.5.0/3')!;
    expect(posixOffsetSecAt(rule, sec('2030-03-31T00:59:59Z'))).toBe(1 * h);
    expect(posixOffsetSecAt(rule, sec('2030-03-31T01:00:00Z'))).toBe(2 * h);
    expect(posixOffsetSecAt(rule, sec('2030-10-27T00:59:59Z'))).toBe(2 * h);
    expect(posixOffsetSecAt(rule, sec('2030-10-27T01:00:00Z'))).toBe(1 * h);
  });

  it('evaluates a southern rule with changes at 24:00 (Santiago)', () => {
    const rule = parsePosixRule('<-04>4<-03>,M9.1.6/24,M4.1.6/24')!;
    expect(rule.dst?.offsetSec).toBe(-3 * h);
    // First Saturday of April 2030 is the 6th: 24:00 at -03 is 03:00 UTC on the 7th.
    expect(posixOffsetSecAt(rule, sec('2030-04-07T02:59:59Z'))).toBe(-3 * h);
    expect(posixOffsetSecAt(rule, sec('2030-04-07T03:00:00Z'))).toBe(-4 * h);
    // First Saturday of September 2030 is the 7th: 24:00 at -04 is 04:00 UTC on the 8th.
    expect(posixOffsetSecAt(rule, sec('2030-09-08T03:59:59Z'))).toBe(-4 * h);
    expect(posixOffsetSecAt(rule, sec('2030-09-08T04:00:00Z'))).toBe(-3 * h);
    // New Year is in daylight time.
    expect(posixOffsetSecAt(rule, sec('2030-12-31T23:59:59Z'))).toBe(-3 * h);
    expect(posixOffsetSecAt(rule, sec('2031-01-01T00:00:00Z'))).toBe(-3 * h);
  });

  it('takes half-hour daylight time (Lord Howe) and Julian days', () => {
    const lordHowe = parsePosixRule('<+1030>-10:30<+11>-11,M10.1.0,M4.1.0')!;
    expect(lordHowe.dst?.offsetSec).toBe(11 * h);
    expect(posixOffsetSecAt(lordHowe, sec('2030-07-01T00:00:00Z'))).toBe(10.5 * h);
    expect(posixOffsetSecAt(lordHowe, sec('2030-12-01T00:00:00Z'))).toBe(11 * h);
    // J60 is 1 March in every year; day 59 (0-based, leap days counted) is 29 February in a leap year.
    const julian = parsePosixRule('AAA0BBB,J60/0,J300/0')!;
    expect(posixOffsetSecAt(julian, sec('2028-02-29T23:59:59Z'))).toBe(0);
    expect(posixOffsetSecAt(julian, sec('2028-03-01T00:00:00Z'))).toBe(h);
    const zeroBased = parsePosixRule('AAA0BBB,59/0,300/0')!;
    expect(posixOffsetSecAt(zeroBased, sec('2028-02-29T00:00:00Z'))).toBe(h);
    expect(posixOffsetSecAt(zeroBased, sec('2027-03-01T00:00:00Z'))).toBe(h);
    expect(posixOffsetSecAt(zeroBased, sec('2027-02-28T23:59:59Z'))).toBe(0);
  });

  it('takes a change whose time reaches into the neighbouring year, and daylight time all year', () => {
    // Daylight time starts 72 hours before the first Sunday of January: for 2027 (3 January), on 31 December 2026.
    const early = parsePosixRule('XXX5YYY,M1.1.0/-72,M6.1.0')!;
    expect(posixOffsetSecAt(early, sec('2026-12-31T12:00:00Z'))).toBe(-4 * h);
    expect(posixOffsetSecAt(early, sec('2026-12-30T12:00:00Z'))).toBe(-5 * h);
    // `J1/0,J365/25`: each year's daylight time ends at the instant the next year's starts.
    const always = parsePosixRule('EST5EDT,0/0,J365/25')!;
    for (const at of ['2026-01-01T04:59:59Z', '2026-01-01T05:00:00Z', '2026-07-01T00:00:00Z', '2026-12-31T23:59:59Z', '2027-01-01T04:00:00Z']) {
      expect(posixOffsetSecAt(always, sec(at)), at).toBe(-4 * h);
    }
  });

  it('refuses what it does not understand, so ICU answers instead', () => {
    for (const text of ['', 'X0', 'CET', 'CET-1CEST', 'CET-1CEST,M3.5.0', 'CET-1CEST,M13.5.0,M10.5.0', 'CET-1CEST,M3.6.0,M10.5.0',
      'CET-1CEST,M3.5.7,M10.5.0', 'CET-25', 'CET-1CEST,J0,J365', 'CET-1CEST,M3.5.0/168,M10.5.0', 'CET-1CEST,M3.5.0,M10.5.0x', 'A'.repeat(200)]) {
      expect(parsePosixRule(text), text).toBeNull();
    }
  });
});
