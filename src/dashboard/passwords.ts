// Dashboard passwords (decision 541): scrypt from node:crypto, with a random salt, stored as
// `scrypt$N$r$p$salt$hash` so the cost can be raised later without losing the hashes already kept.
import crypto from 'node:crypto';
import { promisify } from 'node:util';
import { userLimits } from '../limits/index.ts';

const scrypt = promisify(crypto.scrypt) as (
  password: string,
  salt: Buffer,
  keyLength: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

const cost = { N: 2 ** 15, r: 8, p: 1 } as const;
const keyBytes = 32;

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const hash = await scrypt(password, salt, keyBytes, {
    ...cost,
    maxmem: userLimits.scryptMemoryBytesMax,
  });
  return [
    'scrypt',
    cost.N,
    cost.r,
    cost.p,
    salt.toString('base64url'),
    hash.toString('base64url'),
  ].join('$');
}

/** A stored hash nobody's password matches: checked when no user has the e-mail, so timing tells nothing. */
const absentHash = `scrypt$${cost.N}$${cost.r}$${cost.p}$${Buffer.alloc(16).toString('base64url')}$${Buffer.alloc(keyBytes).toString('base64url')}`;

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = (stored ?? absentHash).split('$');
  if (scheme !== 'scrypt' || salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64url');
  const given = await scrypt(
    password.slice(0, userLimits.passwordLengthMax),
    Buffer.from(salt, 'base64url'),
    expected.length,
    {
      N: Number(n),
      r: Number(r),
      p: Number(p),
      maxmem: userLimits.scryptMemoryBytesMax,
    },
  );
  return crypto.timingSafeEqual(expected, given) && stored !== null;
}
