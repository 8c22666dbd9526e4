// Random, unguessable identifiers with the reference's prefixes (supplement §1.4): prefix + lowercase hex.
import crypto from 'node:crypto';

// Random bytes are drawn from a pool refilled 4 KiB at a time, as crypto.randomUUID does: one getrandom call per
// pool instead of one per id (a create draws five). Each byte is still the CSPRNG's, and used once.
const poolBytes = 4096;
const pool = Buffer.alloc(poolBytes);
let poolOffset = poolBytes;

function randomSlice(bytes: number): Buffer {
  if (bytes > poolBytes) return crypto.randomBytes(bytes);
  if (poolOffset + bytes > poolBytes) {
    crypto.randomFillSync(pool);
    poolOffset = 0;
  }
  const slice = pool.subarray(poolOffset, poolOffset + bytes);
  poolOffset += bytes;
  return slice;
}

export function newId(prefix: string, hexLength = 18): string {
  return (
    prefix +
    randomSlice(Math.ceil(hexLength / 2))
      .toString('hex')
      .slice(0, hexLength)
  );
}

export function randomHex(bytes: number): string {
  return randomSlice(bytes).toString('hex');
}
