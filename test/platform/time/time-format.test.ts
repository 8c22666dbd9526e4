// The service zone's wall clock through Intl (decision 410): known instants of America/Santiago, the seed's formats,
// parseLocal's rules (a skipped wall clock resolves forward, years 1900 to 9999 only, real dates only), and
// properties against a plain oracle: a zone's offset read from Intl one instant at a time, scanned hour by hour
// for its changes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatDate,
  formatDayFirstTimestamp,
  formatTimestamp,
  isValidTimeZone,
  parseLocal,
} from '../../../src/platform/time/time-format.ts';

const at = (iso: string) => new Date(iso);
const zones = [
  'America/Santiago',
  'Europe/Madrid',
  'America/New_York',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'Asia/Kathmandu',
  'Asia/Kolkata',
  'UTC',
  'America/Sao_Paulo',
  'America/Punta_Arenas',
  'Pacific/Easter',
] as const;
const fromSec = Date.UTC(1970, 0, 1) / 1000;
const toSec = Date.UTC(2099, 11, 31) / 1000;

const offsetFormats = new Map<string, Intl.DateTimeFormat>();

/** The oracle: a zone's offset in seconds at an instant, as its `GMT-03:00` name gives it. */
function offsetSec(epochSec: number, timeZone: string): number {
  const p: Record<string, string> = {};
  let format = offsetFormats.get(timeZone);
  if (format === undefined)
    offsetFormats.set(
      timeZone,
      (format = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' })),
    );
  for (const part of format.formatToParts(epochSec * 1000)) p[part.type] = part.value;
  const m = /^GMT(?:([+-])(\d{2}):(\d{2}))?$/.exec(p.timeZoneName ?? '');
  if (m === null) throw new Error(`no offset for ${timeZone}: ${p.timeZoneName}`);
  return m[1] === undefined
    ? 0
    : (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 3600 + Number(m[3]) * 60);
}

const isoWall = (sec: number) => new Date(sec * 1000).toISOString().slice(0, 19).replace('T', ' ');

describe('time formatting in the service zone', () => {
  it('Santiago: -03 in summer, -04 in winter, changing at 24:00 local on the first Saturdays of April and September', () => {
    expect(formatTimestamp(at('2026-01-15T15:00:00Z'), 'America/Santiago')).toBe(
      '2026-01-15 12:00:00',
    );
    expect(formatTimestamp(at('2026-07-15T16:00:00Z'), 'America/Santiago')).toBe(
      '2026-07-15 12:00:00',
    );
    // Saturday 4 April 2026 24:00 at -03 is 03:00 UTC on the 5th; the clock goes back to 23:00 on the 4th.
    expect(formatTimestamp(at('2026-04-05T02:59:59Z'), 'America/Santiago')).toBe(
      '2026-04-04 23:59:59',
    );
    expect(formatTimestamp(at('2026-04-05T03:00:00Z'), 'America/Santiago')).toBe(
      '2026-04-04 23:00:00',
    );
    // Saturday 5 September 2026 24:00 at -04 is 04:00 UTC on the 6th; the clock jumps to 01:00 on the 6th.
    expect(formatTimestamp(at('2026-09-06T03:59:59Z'), 'America/Santiago')).toBe(
      '2026-09-05 23:59:59',
    );
    expect(formatTimestamp(at('2026-09-06T04:00:00Z'), 'America/Santiago')).toBe(
      '2026-09-06 01:00:00',
    );
    expect(formatDayFirstTimestamp(at('2023-08-24T16:29:35.900Z'), 'America/Santiago')).toBe(
      '24-08-2023 12:29:35',
    );
    expect(formatDate(at('2026-01-01T02:00:00Z'), 'America/Santiago')).toBe('2025-12-31');
  });

  it('parses local times: a skipped hour forward, years 1900 to 9999 only, real dates only', () => {
    // The hour skipped in September resolves forward, as wall clocks do.
    expect(parseLocal('2026-09-06 00:30:00', 'America/Santiago')?.toISOString()).toBe(
      '2026-09-06T04:30:00.000Z',
    );
    expect(parseLocal('2026-01-15 12:00', 'America/Santiago')?.toISOString()).toBe(
      '2026-01-15T15:00:00.000Z',
    );
    expect(parseLocal('2026-01-15', 'America/Santiago')?.toISOString()).toBe(
      '2026-01-15T03:00:00.000Z',
    );
    // Years from 1900 to 9999 only (decision 680): before year 1 the drivers write a form PostgreSQL refuses.
    for (const far of ['0000-01-01', '0050-03-01 10:00:00', '1899-12-31 23:59:59']) {
      expect(parseLocal(far, 'UTC'), far).toBeNull();
    }
    expect(parseLocal('1900-01-01', 'UTC')?.toISOString()).toBe('1900-01-01T00:00:00.000Z');
    expect(formatTimestamp(parseLocal('9999-12-31 23:59:59', 'UTC')!, 'UTC')).toBe(
      '9999-12-31 23:59:59',
    );
    // 29 February only in a leap year; nothing out of range, nothing malformed.
    expect(parseLocal('2027-02-29 10:00:00', 'America/Santiago')).toBeNull();
    expect(parseLocal('2028-02-29 10:00:00', 'America/Santiago')?.toISOString()).toBe(
      '2028-02-29T13:00:00.000Z',
    );
    for (const bad of [
      '2026-13-01',
      '2026-04-31',
      '2026-01-01 24:00',
      '2026-01-01 10:60',
      '26-01-01',
      '2026-01-01Z',
    ]) {
      expect(parseLocal(bad, 'America/Santiago'), bad).toBeNull();
    }
  });

  it('knows the zones the runtime knows and refuses the rest', () => {
    expect(isValidTimeZone('America/Santiago')).toBe(true);
    expect(isValidTimeZone('UTC')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus_Mons')).toBe(false);
    // tzdata's placeholder, which ICU never took.
    expect(isValidTimeZone('Factory')).toBe(false);
    expect(isValidTimeZone('')).toBe(false);
  });

  it("renders every instant at the oracle's offset", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.integer({ min: fromSec, max: toSec }),
        (zone, epochSec) => {
          expect(formatTimestamp(new Date(epochSec * 1000), zone)).toBe(
            isoWall(epochSec + offsetSec(epochSec, zone)),
          );
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('parses a local time back to the instant it names', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.integer({ min: fromSec, max: toSec }),
        (zone, epochSec) => {
          const text = formatTimestamp(new Date(epochSec * 1000), zone);
          const parsed = parseLocal(text, zone);
          // A wall clock that occurs twice (the hour a change repeats) may name either instant; both render alike.
          expect(parsed).not.toBeNull();
          expect(formatTimestamp(parsed!, zone)).toBe(text);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('resolves every wall clock a zone skips forward by the change, 2000 to 2040', () => {
    let gaps = 0;
    for (const zone of zones) {
      let previous = offsetSec(Date.UTC(2000, 0, 1) / 1000, zone);
      // Six hours at a time finds each change (none comes closer than that); bisection finds its second.
      for (
        let sec = Date.UTC(2000, 0, 1) / 1000;
        sec < Date.UTC(2040, 0, 1) / 1000;
        sec += 6 * 3600
      ) {
        const offset = offsetSec(sec, zone);
        if (offset === previous) continue;
        let low = sec - 6 * 3600;
        let changeSec = sec;
        while (changeSec - low > 1) {
          const mid = Math.floor((low + changeSec) / 2);
          if (offsetSec(mid, zone) === previous) low = mid;
          else changeSec = mid;
        }
        if (offset > previous) {
          gaps += 1;
          const skippedSec = offset - previous;
          const naiveSec = changeSec + previous + Math.floor(skippedSec / 2);
          const rendered = formatTimestamp(parseLocal(isoWall(naiveSec), zone)!, zone);
          expect(rendered, `${zone}: ${isoWall(naiveSec)}`).toBe(isoWall(naiveSec + skippedSec));
        }
        previous = offset;
      }
    }
    expect(gaps).toBeGreaterThan(100);
  });
});
