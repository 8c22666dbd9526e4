// The file `cobro backup` writes and `cobro restore` reads (decision 520): one JSON header line, then the embedded
// database's files as a gzipped tar. The header names the file's format version, the migrations the database had
// applied, and the DATA_DIR secret key when there was one; its checksum covers the header's other fields and the
// payload, so a truncated, corrupted or edited file is refused before anything is written.
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { limits } from '../../limits/index.ts';

/** The version this cobro writes and the only one it reads. A reader of a later version reads this one too. */
const backupFormatVersion = 1;
const formatName = 'cobro-backup';

export interface BackupHeader {
  readonly format: typeof formatName;
  readonly version: number;
  readonly createdAt: string;
  readonly engine: 'pglite';
  /** The migrations applied to the database when it was copied, in name order. */
  readonly migrations: readonly string[];
  /** DATA_DIR/secret.key as it was; null when there was none (the key came from COBRO_SECRET_KEY). */
  readonly secretKeyFile: string | null;
  readonly payloadBytes: number;
}

interface BackupContents {
  readonly header: BackupHeader;
  /** The database's files as an uncompressed tar, as PGlite's loadDataDir takes them. */
  readonly tar: Uint8Array;
}

function digest(headerText: string, payload: Uint8Array): string {
  return createHash('sha256').update(headerText).update('\n').update(payload).digest('hex');
}

export async function encodeBackup(
  fields: Omit<BackupHeader, 'format' | 'version' | 'payloadBytes'>,
  tar: Uint8Array,
): Promise<Buffer> {
  const payload = await promisify(zlib.gzip)(tar, {
    level: 1,
    chunkSize: limits.backupCompressStepBytes,
  });
  const header: BackupHeader = {
    format: formatName,
    version: backupFormatVersion,
    ...fields,
    payloadBytes: payload.length,
  };
  const text = JSON.stringify(header);
  const line = JSON.stringify({ ...header, sha256: digest(text, payload) });
  return Buffer.concat([Buffer.from(`${line}\n`), payload]);
}

export type DecodeResult = { ok: true; contents: BackupContents } | { ok: false; reason: string };

/** Checks the format, the version and the checksum, then unpacks the payload. */
export async function decodeBackup(file: Buffer): Promise<DecodeResult> {
  const newline = file.subarray(0, limits.backupHeaderBytesMax).indexOf(0x0a);
  if (newline < 0) return { ok: false, reason: 'not a Cobro backup (no header line)' };
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(file.subarray(0, newline).toString('utf8')) as Record<string, unknown>;
  } catch {
    return { ok: false, reason: 'not a Cobro backup (its header is not JSON)' };
  }
  const { sha256, ...rest } = parsed;
  if (rest.format !== formatName) return { ok: false, reason: 'not a Cobro backup' };
  if (rest.version !== backupFormatVersion)
    return {
      ok: false,
      reason: `backup format version ${String(rest.version)}, this cobro reads version ${backupFormatVersion}: restore it with the cobro release that wrote it`,
    };
  const payload = file.subarray(newline + 1);
  if (typeof sha256 !== 'string' || digest(JSON.stringify(rest), payload) !== sha256)
    return {
      ok: false,
      reason: `checksum mismatch: the file is damaged or incomplete (${payload.length} payload bytes, header says ${String(rest.payloadBytes)})`,
    };
  const header = rest as unknown as BackupHeader;
  try {
    return {
      ok: true,
      contents: {
        header,
        tar: await promisify(zlib.gunzip)(payload, { chunkSize: limits.backupCompressStepBytes }),
      },
    };
  } catch (error) {
    return { ok: false, reason: `payload does not unpack: ${String(error)}` };
  }
}
