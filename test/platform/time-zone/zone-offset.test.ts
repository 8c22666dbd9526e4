// The zone's rules come from the system's TZif file when it has one (decision 380); otherwise ICU answers, and a
// zone neither knows is refused. Known instants of America/Santiago pin the rule itself, whatever ICU says.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { zoneOffsets } from '../../../src/platform/time-zone/zone-offset.ts';
import { formatTimestamp, isValidTimeZone, parseLocal } from '../../../src/platform/time-format.ts';

const zoneDir = '/usr/share/zoneinfo';
const hasZoneinfo = fs.existsSync(`${zoneDir}/America/Santiago`);
const at = (iso: string) => new Date(iso);

describe('zone offsets', () => {
  it.skipIf(!hasZoneinfo)('Santiago: -03 in summer, -04 in winter, changing at 24:00 local on the first Saturdays of April and September', () => {
    const santiago = zoneOffsets('America/Santiago', zoneDir)!;
    expect(santiago.source).toBe('tzif');
    expect(santiago.offsetSecAt(at('2026-01-15T12:00:00Z').getTime() / 1000)).toBe(-3 * 3600);
    expect(santiago.offsetSecAt(at('2026-07-15T12:00:00Z').getTime() / 1000)).toBe(-4 * 3600);
    // Saturday 4 April 2026 24:00 at -03 is 03:00 UTC on the 5th; the clock goes back to 23:00 on the 4th.
    expect(formatTimestamp(at('2026-04-05T02:59:59Z'), 'America/Santiago')).toBe('2026-04-04 23:59:59');
    expect(formatTimestamp(at('2026-04-05T03:00:00Z'), 'America/Santiago')).toBe('2026-04-04 23:00:00');
    // Saturday 5 September 2026 24:00 at -04 is 04:00 UTC on the 6th; the clock jumps to 01:00 on the 6th.
    expect(formatTimestamp(at('2026-09-06T03:59:59Z'), 'America/Santiago')).toBe('2026-09-05 23:59:59');
    expect(formatTimestamp(at('2026-09-06T04:00:00Z'), 'America/Santiago')).toBe('2026-09-06 01:00:00');
    // Past the file's last transition the footer's rule holds (2090 is beyond every listed transition).
    expect(formatTimestamp(at('2090-01-15T15:00:00Z'), 'America/Santiago')).toBe('2090-01-15 12:00:00');
    expect(formatTimestamp(at('2090-07-15T16:00:00Z'), 'America/Santiago')).toBe('2090-07-15 12:00:00');
    // The hour skipped in September resolves forward, as wall clocks do.
    expect(parseLocal('2026-09-06 00:30:00', 'America/Santiago')?.toISOString()).toBe('2026-09-06T04:30:00.000Z');
    // Years below 100 are those years (Date.UTC would make them 19xx), and 29 February only in a leap year.
    expect(parseLocal('0050-03-01 10:00:00', 'UTC')?.getUTCFullYear()).toBe(50);
    expect(parseLocal('2027-02-29 10:00:00', 'America/Santiago')).toBeNull();
    expect(parseLocal('2028-02-29 10:00:00', 'America/Santiago')?.toISOString()).toBe('2028-02-29T13:00:00.000Z');
  });

  it('falls back to ICU where the system has no file for the zone, and refuses what neither knows', () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-zoneinfo-'));
    try {
      const santiago = zoneOffsets('America/Santiago', empty);
      expect(santiago?.source).toBe('icu');
      expect(santiago?.offsetSecAt(at('2026-07-15T12:00:00Z').getTime() / 1000)).toBe(-4 * 3600);
      expect(zoneOffsets('Mars/Olympus_Mons', empty)).toBeNull();
    } finally {
      fs.rmSync(empty, { recursive: true });
    }
    expect(isValidTimeZone('Mars/Olympus_Mons')).toBe(false);
    // tzdata's placeholder, which ICU never took.
    expect(isValidTimeZone('Factory')).toBe(false);
    expect(isValidTimeZone('America/Santiago')).toBe(true);
  });

  it('never reads outside the zone directory, nor the database\'s own files', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-zoneinfo-'));
    try {
      fs.mkdirSync(path.join(dir, 'zones'));
      // A valid TZif file one level up: a name with `..` must not reach it.
      if (hasZoneinfo) fs.copyFileSync(`${zoneDir}/UTC`, path.join(dir, 'Outside'));
      expect(zoneOffsets('../Outside', path.join(dir, 'zones'))).toBeNull();
      expect(zoneOffsets('localtime', path.join(dir, 'zones'))).toBeNull();
    } finally {
      fs.rmSync(dir, { recursive: true });
    }
  });

  it('takes ICU\'s answer when the file is not a TZif file this reader takes', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-zoneinfo-'));
    try {
      fs.mkdirSync(path.join(dir, 'America'));
      fs.writeFileSync(path.join(dir, 'America', 'Santiago'), 'not a zone file');
      expect(zoneOffsets('America/Santiago', dir)?.source).toBe('icu');
      if (hasZoneinfo) {
        // Every cut of a real file, the last one without its footer: never an exception, ICU or the rules.
        const whole = fs.readFileSync(`${zoneDir}/America/Punta_Arenas`);
        fs.mkdirSync(path.join(dir, 'Cut'));
        for (let length = 0; length < whole.length; length += 7) {
          fs.writeFileSync(path.join(dir, 'Cut', `At${length}`), whole.subarray(0, length));
          expect(['icu', 'tzif', undefined], String(length)).toContain(zoneOffsets(`Cut/At${length}`, dir)?.source);
        }
        const footerAt = whole.lastIndexOf(0x0a, whole.length - 2);
        fs.writeFileSync(path.join(dir, 'Cut', 'NoFooter'), whole.subarray(0, footerAt));
        expect(zoneOffsets('Cut/NoFooter', dir)).toBeNull();
      }
    } finally {
      fs.rmSync(dir, { recursive: true });
    }
  });
});
