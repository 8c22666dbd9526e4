// Renders instants in the service time zone as the seed shows them: `YYYY-MM-DD HH:MM:SS` and `YYYY-MM-DD`.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric', month: '2-digit', day: '2-digit',
      hour: '2-digit', minute: '2-digit', second: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

function parts(at: Date, timeZone: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of formatter(timeZone).formatToParts(at)) out[p.type] = p.value;
  return out;
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
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** Offset of the zone from UTC at an instant, in ms (positive east of Greenwich). */
function zoneOffsetMs(at: Date, timeZone: string): number {
  const p = parts(at, timeZone);
  const asUtc = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
  return asUtc - Math.floor(at.getTime() / 1000) * 1000;
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
  const naiveUtc = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(naiveUtc);
  if (check.getUTCDate() !== day || check.getUTCMonth() !== month - 1) return null;
  let guess = naiveUtc - zoneOffsetMs(new Date(naiveUtc), timeZone);
  guess = naiveUtc - zoneOffsetMs(new Date(guess), timeZone);
  return new Date(guess);
}
