// Decision 380: offsets come from the system's TZif files and their POSIX footers instead of ICU. ICU is the oracle
// here: for every zone below, any instant from 1970 to 2099 must get the offset, and so the wall clock, that
// `Intl.DateTimeFormat` gives. The zones cover southern rules with changes at 24:00 (Santiago), northern ones
// (Madrid, New York), half-hour daylight (Lord Howe), quarter-hour offsets (Chatham, Kathmandu), no daylight
// (Kolkata, UTC) and a zone that left daylight time (Sao Paulo). Skipped where the machine has no zoneinfo. The two
// copies of the database are updated apart (Debian 12's tzdata 2025b, Node 24.21's ICU 2026c): these zones are ones
// both agree on; on a host whose tzdata predates a change to one of them, the failure names the zone.
import fs from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { zoneOffsets } from '../../../src/platform/time-zone/zone-offset.ts';
import { formatTimestamp, parseLocal } from '../../../src/platform/time-format.ts';

const zoneDir = '/usr/share/zoneinfo';
const zones = [
  'America/Santiago', 'Europe/Madrid', 'America/New_York', 'Australia/Lord_Howe', 'Pacific/Chatham', 'Asia/Kathmandu',
  'Asia/Kolkata', 'UTC', 'America/Sao_Paulo', 'America/Punta_Arenas', 'Pacific/Easter',
] as const;
const fromSec = Date.UTC(1970, 0, 1) / 1000;
const toSec = Date.UTC(2099, 11, 31) / 1000;

function icuWallClock(epochSec: number, timeZone: string): string {
  const p: Record<string, string> = {};
  const format = new Intl.DateTimeFormat('en-CA', {
    timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
  });
  for (const part of format.formatToParts(epochSec * 1000)) p[part.type] = part.value;
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}

describe.skipIf(!fs.existsSync(`${zoneDir}/America/Santiago`))('zone offsets from the system database', () => {
  it('reads every zone below from its TZif file, not ICU', () => {
    for (const zone of zones) expect(zoneOffsets(zone, zoneDir)?.source, zone).toBe('tzif');
  });

  it('renders every instant as ICU does', () => {
    fc.assert(fc.property(fc.constantFrom(...zones), fc.integer({ min: fromSec, max: toSec }), (zone, epochSec) => {
      expect(formatTimestamp(new Date(epochSec * 1000), zone)).toBe(icuWallClock(epochSec, zone));
    }), { numRuns: 3000 });
  });

  it('agrees with ICU on both sides of every change from 2020 to 2060', () => {
    for (const zone of zones) {
      const offsets = zoneOffsets(zone, zoneDir)!;
      let previous = offsets.offsetSecAt(Date.UTC(2020, 0, 1) / 1000);
      // Hour by hour finds each change; the seconds around it are checked exactly.
      for (let sec = Date.UTC(2020, 0, 1) / 1000; sec < Date.UTC(2060, 0, 1) / 1000; sec += 3600) {
        const offset = offsets.offsetSecAt(sec);
        if (offset === previous) continue;
        for (const s of [sec - 3601, sec - 1800, sec - 1, sec, sec + 1, sec + 1800]) {
          expect(formatTimestamp(new Date(s * 1000), zone), `${zone} at ${s}`).toBe(icuWallClock(s, zone));
        }
        previous = offset;
      }
    }
  });

  it('parses a local time back to the instant it names', () => {
    fc.assert(fc.property(fc.constantFrom(...zones), fc.integer({ min: fromSec, max: toSec }), (zone, epochSec) => {
      const text = formatTimestamp(new Date(epochSec * 1000), zone);
      const parsed = parseLocal(text, zone);
      // A wall clock that occurs twice (the hour a change repeats) may name either instant; both render alike.
      expect(parsed).not.toBeNull();
      expect(formatTimestamp(parsed!, zone)).toBe(text);
    }), { numRuns: 2000 });
  });

  it('resolves every wall clock a zone skips forward by the change, 1970 to 2060', () => {
    let gaps = 0;
    for (const zone of zones) {
      const offsets = zoneOffsets(zone, zoneDir)!;
      let previous = offsets.offsetSecAt(fromSec);
      for (let sec = fromSec; sec < Date.UTC(2060, 0, 1) / 1000; sec += 3600) {
        const offset = offsets.offsetSecAt(sec);
        if (offset === previous) continue;
        // Find the change's second (the first with the new offset), then name the middle of the skipped span.
        let low = sec - 3600;
        let changeSec = sec;
        while (changeSec - low > 1) {
          const mid = Math.floor((low + changeSec) / 2);
          if (offsets.offsetSecAt(mid) === previous) low = mid;
          else changeSec = mid;
        }
        if (offset > previous) {
          gaps += 1;
          const skippedSec = offset - previous;
          const naiveSec = changeSec + previous + Math.floor(skippedSec / 2);
          const text = new Date(naiveSec * 1000).toISOString().slice(0, 19).replace('T', ' ');
          const rendered = formatTimestamp(parseLocal(text, zone)!, zone);
          const expected = new Date((naiveSec + skippedSec) * 1000).toISOString().slice(0, 19).replace('T', ' ');
          expect(rendered, `${zone}: ${text}`).toBe(expected);
        }
        previous = offset;
      }
    }
    expect(gaps).toBeGreaterThan(250);
  });
});
