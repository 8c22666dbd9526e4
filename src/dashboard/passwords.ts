// Dashboard passwords (decision 541): scrypt from node:crypto, with a random salt, stored as
// `scrypt$N$r$p$salt$hash` so the cost can be raised later without losing the hashes already kept. The cost is
// PASSWORD_HASH_COST (log2 of N, 15 unless a test lowers it): a hash is checked at the cost it was made with.
import crypto from 'node:crypto';
import { promisify } from 'node:util';
import { userLimits } from '../limits/index.ts';

const scrypt = promisify(crypto.scrypt) as (
  password: string,
  salt: Buffer,
  keyLength: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

const costOf = (costLog2N: number) => ({ N: 2 ** costLog2N, r: 8, p: 1 }) as const;
const keyBytes = 32;

/** A new hash of `password` at scrypt's N = 2^costLog2N. */
export async function hashPassword(password: string, costLog2N: number): Promise<string> {
  const cost = costOf(costLog2N);
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

/**
 * A stored hash nobody's password matches, at the cost new hashes are made with: checked when no user has the
 * e-mail, so timing tells nothing.
 */
function absentHash(costLog2N: number): string {
  const cost = costOf(costLog2N);
  return `scrypt$${cost.N}$${cost.r}$${cost.p}$${Buffer.alloc(16).toString('base64url')}$${Buffer.alloc(keyBytes).toString('base64url')}`;
}

/** Whether `password` matches `stored` (null: no such user, checked against a hash at `costLog2N` all the same). */
export async function verifyPassword(
  password: string,
  stored: string | null,
  costLog2N: number,
): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = (stored ?? absentHash(costLog2N)).split('$');
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
