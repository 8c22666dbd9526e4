// Encrypts secrets at rest (private tokens, webhook secrets) with AES-256-GCM under COBRO_SECRET_KEY.
// In sandbox without a configured key, a generated key file in DATA_DIR serves (supplement §2.5).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { dataDirEntries } from '../process/fs-permissions.ts';
import { makeDataDir } from '../process/data-dir.ts';
import { StartupError, errorText } from '../process/startup-error.ts';

export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
  /** A key of its own for one purpose (e.g. signing cookies), derived from the secret key: stable across processes. */
  derive(purpose: string): Buffer;
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new RangeError('secret key must be 32 bytes');
  return {
    seal(plain) {
      const iv = crypto.randomBytes(12);
      const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `v1.${iv.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}.${body.toString('base64url')}`;
    },
    open(sealed) {
      const [version, iv, tag, body] = sealed.split('.');
      if (version !== 'v1' || iv === undefined || tag === undefined || body === undefined)
        throw new Error('sealed secret has an unknown format');
      const decipher = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([
        decipher.update(Buffer.from(body, 'base64url')),
        decipher.final(),
      ]).toString('utf8');
    },
    derive(purpose) {
      return Buffer.from(crypto.hkdfSync('sha256', key, Buffer.alloc(0), `cobro:${purpose}`, 32));
    },
  };
}

/** A key file's text: 64 hexadecimal characters (a newline after them allowed); anything else is refused by name. */
function parseSecretKeyFile(text: string, file: string): Buffer {
  const hex = text.trim();
  if (!/^[0-9a-fA-F]{64}$/.test(hex))
    throw new StartupError(
      `${file} is damaged: a secret key file holds 64 hexadecimal characters; put back the file the data was written under (a backup of DATA_DIR holds it)`,
    );
  return Buffer.from(hex, 'hex');
}

/** The sandbox key file in dataDir, or null when there is none. */
function readSecretKeyFile(dataDir: string): Buffer | null {
  const file = path.join(dataDir, dataDirEntries.secretKey);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    // ENOTDIR: DATA_DIR names a file; whoever would create the key there says so (makeDataDir).
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw new StartupError(`cannot read the secret key file ${file}: ${errorText(error)}`);
  }
  return parseSecretKeyFile(text, file);
}

/** The configured key, or the sandbox key file in dataDir (created on first use, mode 0600). */
export function resolveSecretKey(configured: Buffer | null, dataDir: string): Buffer {
  const existing = existingSecretKey(configured, dataDir);
  if (existing !== null) return existing;
  makeDataDir(dataDir);
  return createSecretKeyFile(dataDir, crypto.randomBytes(32));
}

/**
 * Writes `key` as dataDir's key file, or answers the key another process starting on the same DATA_DIR wrote first
 * (decision 1220): the file is written whole under a name of its own, then linked into place, so only one key ever
 * wins and nobody reads it half written.
 */
export function createSecretKeyFile(dataDir: string, key: Buffer): Buffer {
  const file = path.join(dataDir, dataDirEntries.secretKey);
  const text = `${key.toString('hex')}\n`;
  const draft = `${file}.${process.pid}.${crypto.randomBytes(6).toString('hex')}.tmp`;
  fs.writeFileSync(draft, text, { mode: 0o600, flag: 'wx' });
  try {
    fs.linkSync(draft, file);
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      const theirs = readSecretKeyFile(dataDir);
      if (theirs === null) throw new StartupError(`${file} vanished while this start read it`);
      return theirs;
    }
    // A file system without hard links: created in place, as before (a racing start may then fail once).
    fs.writeFileSync(file, text, { mode: 0o600, flag: 'wx' });
    return key;
  } finally {
    fs.rmSync(draft, { force: true });
  }
}

/** The configured key or the existing sandbox key file; null when neither is there (nothing is created). */
export function existingSecretKey(configured: Buffer | null, dataDir: string): Buffer | null {
  return configured ?? readSecretKeyFile(dataDir);
}

/** A box for a process that has no key and must not make one: it works until a secret is sealed, opened or derived. */
export function keylessSecretBox(reason: string): SecretBox {
  const refuse = (): never => {
    throw new Error(reason);
  };
  return { seal: refuse, open: refuse, derive: refuse };
}

export function sha256Hex(text: string): string {
  return crypto.createHash('sha256').update(text).digest('hex');
}
