// Renders instants in the service time zone as the seed shows them: `YYYY-MM-DD HH:MM:SS` and `YYYY-MM-DD`.
// The zone's offsets come from src/platform/time-zone (the system's time-zone database, ICU only as a fallback).
import { utcMs, zoneOffsets, type ZoneOffsets } from './time-zone/zone-offset.ts';

function offsetsOf(timeZone: string): ZoneOffsets {
  const found = zoneOffsets(timeZone);
  // Config refuses an unknown zone at start (isValidTimeZone), so every zone that reaches here is known.
  if (found === null) throw new Error(`unknown time zone ${timeZone}`);
  return found;
}

interface WallClock {
  readonly year: string;
  readonly month: string;
  readonly day: string;
  readonly hour: string;
  readonly minute: string;
  readonly second: string;
}

const two = (n: number) => String(n).padStart(2, '0');

/** The wall clock of the zone at an instant, to the second (the milliseconds are dropped, as ICU drops them). */
function parts(at: Date, timeZone: string): WallClock {
  const epochSec = Math.floor(at.getTime() / 1000);
  const wall = new Date((epochSec + offsetsOf(timeZone).offsetSecAt(epochSec)) * 1000);
  return {
    year: String(wall.getUTCFullYear()).padStart(4, '0'), month: two(wall.getUTCMonth() + 1), day: two(wall.getUTCDate()),
    hour: two(wall.getUTCHours()), minute: two(wall.getUTCMinutes()), second: two(wall.getUTCSeconds()),
  };
}

export function formatTimestamp(at: Date, timeZone: string): string {
  const p = parts(at, timeZone);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}

/** Day first, as the reference's nullification callback writes `fecha` (`24-08-2023 12:29:35`, reference §3.3). */
export function formatDayFirstTimestamp(at: Date, timeZone: string): string {
  const p = parts(at, timeZone);
  return `${p.day}-${p.month}-${p.year} ${p.hour}:${p.minute}:${p.second}`;
}

export function formatDate(at: Date, timeZone: string): string {
  const p = parts(at, timeZone);
  return `${p.year}-${p.month}-${p.day}`;
}

export function isValidTimeZone(timeZone: string): boolean {
  return zoneOffsets(timeZone) !== null;
}

/** Offset of the zone from UTC at an instant, in ms (positive east of Greenwich). */
function zoneOffsetMs(at: Date, timeZone: string): number {
  return offsetsOf(timeZone).offsetSecAt(Math.floor(at.getTime() / 1000)) * 1000;
}

const localPattern = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/;

/**
 * Parses a local `YYYY-MM-DD[ HH:MM[:SS]]` in the service zone into an instant; null when malformed or not a real date.
 * DST gaps resolve forward, as wall clocks do.
 */
export function parseLocal(text: string, timeZone: string): Date | null {
  const m = localPattern.exec(text.trim());
  if (m === null) return null;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4] ?? '0', m[5] ?? '0', m[6] ?? '0'].map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return null;
  const naiveUtc = utcMs(year, month - 1, day, hour, minute, second);
  const check = new Date(naiveUtc);
  if (check.getUTCDate() !== day || check.getUTCMonth() !== month - 1) return null;
  const firstGuessMs = naiveUtc - zoneOffsetMs(new Date(naiveUtc), timeZone);
  const guessMs = naiveUtc - zoneOffsetMs(new Date(firstGuessMs), timeZone);
  if (guessMs !== firstGuessMs && formatTimestamp(new Date(guessMs), timeZone) !== `${m[1]}-${m[2]}-${m[3]} ${two(hour)}:${two(minute)}:${two(second)}`) {
    // A wall clock the zone skips: the offset from before the change carries it past the change (00:30 on the
    // night Santiago jumps from 00:00 to 01:00 is 01:30).
    return new Date(Math.max(firstGuessMs, guessMs));
  }
  return new Date(guessMs);
}

/** The zone's offset from UTC at an instant as people write it beside a time: `-03`, `+05:30`, `+00`. */
export function formatZoneOffset(at: Date, timeZone: string): string {
  const offsetMin = Math.round(offsetsOf(timeZone).offsetSecAt(Math.floor(at.getTime() / 1000)) / 60);
  const magnitude = Math.abs(offsetMin);
  const minutes = magnitude % 60;
  return `${offsetMin < 0 ? '-' : '+'}${two(Math.floor(magnitude / 60))}${minutes === 0 ? '' : `:${two(minutes)}`}`;
}
