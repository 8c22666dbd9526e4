// A zone's rules from its TZif file (RFC 8536), as the operating system's time-zone database keeps them
// (/usr/share/zoneinfo): the transitions it lists, then the POSIX rule of its footer for every later instant.
// Only what an offset needs is kept; abbreviations, leap seconds and the standard/UT indicators are not.
import { limits } from '../../limits.ts';
import { parsePosixRule, posixOffsetSecAt, type PosixRule } from './posix-rule.ts';

export interface ZoneRules {
  /** Transition instants, seconds since the epoch, ascending. */
  readonly transitionsSec: readonly number[];
  /** The offset from UTC (seconds, east positive) from each transition on. */
  readonly offsetsSec: readonly number[];
  /** Before the first transition (RFC 8536 §3.2: time type 0). */
  readonly initialOffsetSec: number;
  /** After the last transition; null for a version 1 file, where the last type holds. */
  readonly footer: PosixRule | null;
}

const headerBytes = 44;
const typeEntryBytes = 6;

interface Header {
  readonly version: number;
  readonly isutcnt: number;
  readonly isstdcnt: number;
  readonly leapcnt: number;
  readonly timecnt: number;
  readonly typecnt: number;
  readonly charcnt: number;
}

function readHeader(view: DataView, at: number): Header | null {
  if (at + headerBytes > view.byteLength) return null;
  if (view.getUint32(at) !== 0x545a6966) return null; // "TZif"
  const v = view.getUint8(at + 4);
  const version = v === 0 ? 1 : v - 0x30;
  if (version < 1 || version > 9) return null;
  const count = (i: number) => view.getUint32(at + 20 + i * 4);
  return { version, isutcnt: count(0), isstdcnt: count(1), leapcnt: count(2), timecnt: count(3), typecnt: count(4), charcnt: count(5) };
}

function blockBytes(h: Header, timeBytes: number): number {
  return h.timecnt * timeBytes + h.timecnt + h.typecnt * typeEntryBytes + h.charcnt + h.leapcnt * (timeBytes + 4) + h.isstdcnt + h.isutcnt;
}

/** The rules, or null when the bytes are not a TZif file this reader takes (leap-second zones included). */
export function parseTzif(bytes: Uint8Array): ZoneRules | null {
  if (bytes.byteLength > limits.tzifBytesMax) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const first = readHeader(view, 0);
  if (first === null) return null;
  let header = first;
  let at = headerBytes;
  let timeBytes = 4;
  if (first.version >= 2) {
    // Version 2+: skip the 32-bit block, read the 64-bit one and the footer after it.
    at += blockBytes(first, 4);
    const second = readHeader(view, at);
    if (second === null) return null;
    header = second;
    at += headerBytes;
    timeBytes = 8;
  }
  const { timecnt, typecnt, leapcnt } = header;
  // Leap seconds (the `right/` zones) shift every instant: not the civil time this service renders.
  if (typecnt === 0 || leapcnt !== 0 || at + blockBytes(header, timeBytes) > bytes.byteLength) return null;
  const transitionsSec: number[] = [];
  for (let i = 0; i < timecnt; i++) {
    transitionsSec.push(timeBytes === 8 ? Number(view.getBigInt64(at + i * 8)) : view.getInt32(at + i * 4));
    if (i > 0 && transitionsSec[i]! <= transitionsSec[i - 1]!) return null;
  }
  at += timecnt * timeBytes;
  const typeOffsets: number[] = [];
  const typesAt = at + timecnt;
  for (let t = 0; t < typecnt; t++) {
    const offsetSec = view.getInt32(typesAt + t * typeEntryBytes);
    if (Math.abs(offsetSec) > limits.zoneOffsetSecMax) return null;
    typeOffsets.push(offsetSec);
  }
  const offsetsSec: number[] = [];
  for (let i = 0; i < timecnt; i++) {
    const offset = typeOffsets[view.getUint8(at + i)];
    if (offset === undefined) return null;
    offsetsSec.push(offset);
  }
  at += blockBytes(header, timeBytes) - timecnt * timeBytes;
  let footer: PosixRule | null = null;
  if (header.version >= 2) {
    // "\n" rule "\n"; an empty rule means the zone has no rule for later instants, as in version 1.
    if (at >= bytes.byteLength || view.getUint8(at) !== 0x0a) return null;
    const endAt = bytes.indexOf(0x0a, at + 1);
    if (endAt < 0) return null;
    const text = new TextDecoder('ascii').decode(bytes.subarray(at + 1, endAt));
    if (text !== '') {
      footer = parsePosixRule(text);
      if (footer === null) return null;
    }
  }
  return { transitionsSec, offsetsSec, initialOffsetSec: typeOffsets[0]!, footer };
}

/** The zone's offset from UTC in seconds at `epochSec`. */
export function offsetSecAt(rules: ZoneRules, epochSec: number): number {
  const { transitionsSec, offsetsSec } = rules;
  const count = transitionsSec.length;
  if (count === 0) return rules.footer === null ? rules.initialOffsetSec : posixOffsetSecAt(rules.footer, epochSec);
  if (epochSec < transitionsSec[0]!) return rules.initialOffsetSec;
  if (epochSec >= transitionsSec[count - 1]! && rules.footer !== null) return posixOffsetSecAt(rules.footer, epochSec);
  // The last transition at or before the instant.
  let low = 0;
  let high = count - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (transitionsSec[mid]! <= epochSec) low = mid;
    else high = mid - 1;
  }
  return offsetsSec[low]!;
}
