// A zone's offset from UTC at an instant, from the operating system's time-zone database when it has the zone
// (TZDIR, else /usr/share/zoneinfo), else from ICU through Intl. ICU's tables are 5-6 MB of Node's binary that a
// serving process otherwise never touches (decision 380); the system's copy is the one PostgreSQL and the C
// library read too. Each zone is read once per process.
import fs from 'node:fs';
import path from 'node:path';
import { limits } from '../../limits.ts';
import { offsetSecAt, parseTzif, type ZoneRules } from './tzif.ts';

/** Date.UTC, except that years 0-99 are those years, not 1900-1999. */
export function utcMs(year: number, monthIndex: number, day: number, hour: number, minute: number, second: number): number {
  const at = new Date(Date.UTC(2000, monthIndex, day, hour, minute, second));
  at.setUTCFullYear(year, monthIndex, day);
  return at.getTime();
}

export interface ZoneOffsets {
  /** Offset from UTC in seconds, positive east of Greenwich, at `epochSec`. */
  offsetSecAt(epochSec: number): number;
  /** Where the rules come from, for the operator's log and the tests. */
  readonly source: 'tzif' | 'icu';
}

/** Read once, as every setting of the environment is: every timestamp rendered asks for its zone. */
const systemZoneDir = process.env.TZDIR || '/usr/share/zoneinfo';
/** IANA names: `Area/Location[/Sub]` from a capital, letters, digits, `_`, `+`, `-`; never `.` (no `..` out of the
 *  directory), and not the database's own files (`localtime`, `posixrules`, the `posix/` and `right/` copies). */
const zoneNamePattern = /^[A-Z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+){0,2}$/;

/** tzdata's placeholder zone (`-00`), which ICU does not take: still refused. */
const factoryZone = 'Factory';

const zones = new Map<string, ZoneOffsets | null>();

function tzifRules(timeZone: string, zoneDir: string): ZoneRules | null {
  if (timeZone.length > limits.timeZoneNameLengthMax || !zoneNamePattern.test(timeZone) || timeZone === factoryZone) return null;
  try {
    const file = path.join(zoneDir, timeZone);
    if (fs.statSync(file).size > limits.tzifBytesMax) return null;
    return parseTzif(fs.readFileSync(file));
  } catch {
    // Unreadable, or a file the parser's bounds checks missed: ICU answers instead.
    return null;
  }
}

function icuOffsets(timeZone: string): ZoneOffsets | null {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
    });
  } catch {
    return null;
  }
  return {
    source: 'icu',
    offsetSecAt(epochSec: number): number {
      const p: Record<string, string> = {};
      for (const part of format.formatToParts(epochSec * 1000)) p[part.type] = part.value;
      const wallMs = utcMs(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
      return wallMs / 1000 - epochSec;
    },
  };
}

/** The zone's offsets, or null when neither the system's database nor ICU knows it. */
export function zoneOffsets(timeZone: string, zoneDir: string = systemZoneDir): ZoneOffsets | null {
  const key = `${zoneDir}\u0000${timeZone}`;
  const kept = zones.get(key);
  if (kept !== undefined) return kept;
  const rules = tzifRules(timeZone, zoneDir);
  const found: ZoneOffsets | null = rules !== null
    ? { source: 'tzif', offsetSecAt: (epochSec) => offsetSecAt(rules, epochSec) }
    : icuOffsets(timeZone);
  if (zones.size >= limits.timeZonesKeptMax) zones.clear();
  zones.set(key, found);
  return found;
}
