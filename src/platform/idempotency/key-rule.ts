// What makes an idempotency key: the API's Idempotency-Key and an operator command's --key (decision 1155) obey this
// one rule, so a key an operator types is held to what a client may send. Trimmed, then 1 to lengthMax characters,
// each one an HTTP field value may carry (RFC 9110 §5.5: visible ASCII, space, tab and obs-text, U+0080 to U+00FF),
// the only characters that reach the API's header; a line break or a NUL can only come from a command line.
import { limits } from '../../limits/index.ts';

export type KeyProblem = 'is empty' | 'too long' | 'has a character a key may not carry';

const keyCharacters = /^[\t\x20-\x7e\x80-\xff]*$/;

/** The key, trimmed, or why it is not one; lengthMax is the table's bound where the key is stored. */
export function checkKey(
  raw: string,
  lengthMax: number = limits.idempotencyKeyLengthMax,
):
  | { readonly ok: true; readonly key: string }
  | { readonly ok: false; readonly problem: KeyProblem } {
  const key = raw.trim();
  if (key === '') return { ok: false, problem: 'is empty' };
  if (key.length > lengthMax) return { ok: false, problem: 'too long' };
  if (!keyCharacters.test(key))
    return { ok: false, problem: 'has a character a key may not carry' };
  return { ok: true, key };
}
