// Random, unguessable identifiers with the reference's prefixes (supplement §1.4): prefix + lowercase hex.
import crypto from 'node:crypto';

export function newId(prefix: string, hexLength = 18): string {
  return prefix + crypto.randomBytes(Math.ceil(hexLength / 2)).toString('hex').slice(0, hexLength);
}

export function randomHex(bytes: number): string {
  return crypto.randomBytes(bytes).toString('hex');
}
