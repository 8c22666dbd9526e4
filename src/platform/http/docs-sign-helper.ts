// The "sign this request" helper of /docs in sandbox: Swagger UI's requestInterceptor, sent to the browser as its
// source text (so it uses only browser globals). Paste the PRIVATE token into the `sign` field of "Authorize": for
// each "Try it out" request the helper replaces it with the request's Sign header (docs/authentication.md), computed
// in the browser with Web Crypto; the private token itself is never sent. A 64-hex value there is taken as an
// already computed Sign and sent as is.
export async function signRequestInterceptor(req: { [prop: string]: any }) {
  const headers = (req.headers ?? {}) as Record<string, string>;
  const headerName = Object.keys(headers).find((h) => h.toLowerCase() === 'sign');
  if (headerName === undefined) return req;
  const token = headers[headerName] ?? '';
  if (/^[0-9a-fA-F]{64}$/.test(token)) return req;
  delete headers[headerName];
  if (token === '' || globalThis.crypto?.subtle === undefined) {
    // Web Crypto needs a secure origin (https or localhost): sign with `cobro sign` and paste the result instead.
    return req;
  }
  const phpUrlEncode = (text: string) =>
    encodeURIComponent(text)
      .replace(/[!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
      .replace(/%20/g, '+');
  const url = new URL(
    req.url,
    (globalThis as { location?: { href: string } }).location?.href ?? 'http://localhost/',
  );
  // The query as the server reads it (src/platform/auth/sign.ts, queryParams; decision 770): a key given more than
  // once is a list, which Sign leaves out like every non-scalar. No prototype, as the server's parser makes it.
  let params = Object.create(null) as Record<string, unknown>;
  for (const name of new Set(url.searchParams.keys())) {
    const all = url.searchParams.getAll(name);
    params[name] = all.length === 1 ? all[0] : all;
  }
  if (typeof req.body === 'string' && req.body.trim().startsWith('{')) {
    try {
      params = JSON.parse(req.body) as Record<string, unknown>;
    } catch {
      /* not JSON: sign the query */
    }
  }
  const pairs: string[] = [];
  for (const key of Object.keys(params).sort()) {
    const value = params[key];
    if (value === null || value === undefined || typeof value === 'object') continue;
    pairs.push(`${key}=${phpUrlEncode(String(value))}`);
  }
  const text = `${phpUrlEncode(decodeURIComponent(url.pathname))}&${pairs.join('&')}`;
  const enc = new TextEncoder();
  const key = await globalThis.crypto.subtle.importKey(
    'raw',
    enc.encode(token),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const mac = new Uint8Array(await globalThis.crypto.subtle.sign('HMAC', key, enc.encode(text)));
  headers.Sign = Array.from(mac, (b) => b.toString(16).padStart(2, '0')).join('');
  return req;
}
