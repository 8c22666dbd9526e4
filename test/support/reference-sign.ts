// The `Sign` header computed as the reference's own scripts compute it (reference §12.3, §12.4), written apart from
// the server's src/platform/auth/sign.ts so a test proves the server accepts what a merchant's existing code sends:
// the PHP sample (urlencode, ksort, gettype) and the JS sample (encodeURIComponent, sort, URLSearchParams), both
// ending in `&` when there are no parameters.
import crypto from 'node:crypto';

export type ReferenceScript = 'php' | 'js';

/** PHP's urlencode: letters, digits and `-_.` stay, a space is `+`, every other byte is `%XX` upper-case. */
function phpUrlencode(text: string): string {
  return Array.from(Buffer.from(text, 'utf8'))
    .map((byte) => {
      const c = String.fromCharCode(byte);
      if (/[A-Za-z0-9\-_.]/.test(c)) return c;
      if (c === ' ') return '+';
      return `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');
}

/** PHP's string conversion of a decoded JSON scalar: true is `1`, false and null are empty. */
function phpString(value: unknown): string {
  if (value === true) return '1';
  if (value === false || value === null) return '';
  return String(value);
}

function phpConcat(path: string, data: Readonly<Record<string, unknown>>): string {
  const pairs = Object.keys(data)
    .sort()
    .filter((k) => typeof data[k] !== 'object' || data[k] === null) // gettype: array and object are dropped, NULL is kept
    .map((k) => `${k}=${phpUrlencode(phpString(data[k]))}`);
  return `${phpUrlencode(path)}&${pairs.join('&')}`;
}

function jsConcat(path: string, data: Readonly<Record<string, unknown>>): string {
  const kept: Record<string, string> = {};
  for (const k of Object.keys(data).sort()) {
    if (typeof data[k] === 'object' || data[k] === undefined) continue; // typeof null is 'object': dropped
    kept[k] = String(data[k]);
  }
  return `${encodeURIComponent(path)}&${new URLSearchParams(kept).toString()}`;
}

/** `path` as the script is given it (a trailing slash stays); `data` the JSON body, or a GET's query parameters. */
export function referenceSign(
  script: ReferenceScript,
  privateToken: string,
  path: string,
  data: Readonly<Record<string, unknown>> = {},
): string {
  const concat = script === 'php' ? phpConcat(path, data) : jsConcat(path, data);
  return crypto.createHmac('sha256', privateToken).update(concat).digest('hex');
}
