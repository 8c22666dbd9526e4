// What /docs needs beyond Swagger UI's own files to load fast, read on a phone and pass axe (issue 32 point 7): a page
// of our own around Swagger UI (language, a viewport for phones, asset URLs that carry a version so browsers may
// keep them for a year), a theme that gives every text AA contrast and hides the top bar's "explore another
// document" form (nothing here serves another document), and a few lines of script that name what Swagger UI
// leaves unnamed (its logo image, its servers list). Compression itself is @fastify/compress on the docs app.
import crypto from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** The files the page loads, in its order: Swagger UI's (from @fastify/swagger-ui), then the theme's. */
const styles = ['swagger-ui.css', 'index.css'] as const;
const scripts = [
  'swagger-ui-bundle.js',
  'swagger-ui-standalone-preset.js',
  'swagger-initializer.js',
  'theme/names.js',
] as const;
const staticPrefix = '/docs/static/';

/** A year: a versioned URL never changes content, so the browser need not ask again (RFC 8246 `immutable`). */
export const versionedCacheControl = 'public, max-age=31536000, immutable';

/**
 * AA contrast where Swagger UI's greys fall short on white (4.5:1 for text): the version stamps, the URL under the
 * title, the operation paths and descriptions, the models' and parameters' small print. Below 640 px the
 * operation rows wrap instead of running off the screen.
 */
export const docsThemeCss = `.swagger-ui .topbar .download-url-wrapper { display: none; }
.swagger-ui .info .title small, .swagger-ui .info .title small.version-stamp { background: #3b4452; }
.swagger-ui .info .title small pre { color: #fff; }
.swagger-ui, .swagger-ui .info p, .swagger-ui .info li, .swagger-ui .info a, .swagger-ui .info .base-url, .swagger-ui .opblock-tag small,
.swagger-ui .opblock .opblock-summary-description, .swagger-ui .opblock .opblock-summary-path, .swagger-ui .opblock-description-wrapper p,
.swagger-ui .parameter__type, .swagger-ui .parameter__in, .swagger-ui .prop-format, .swagger-ui .model, .swagger-ui .model-title,
.swagger-ui .response-col_status, .swagger-ui .response-col_links, .swagger-ui table thead tr th, .swagger-ui table thead tr td,
.swagger-ui .tab li, .swagger-ui .opblock-tag, .swagger-ui section.models h4, .swagger-ui .model-box-control, .swagger-ui .servers-title,
.swagger-ui .scheme-container .schemes > label, .swagger-ui label, .swagger-ui .renderedMarkdown p { color: #1d2430; }
.swagger-ui .info a, .swagger-ui .renderedMarkdown a { color: #0a5c8a; }
.swagger-ui .opblock .opblock-summary-method { color: #fff; text-shadow: none; }
.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #1f5f99; }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #1a6b45; }
.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #8a4b00; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #a11d1d; }
.swagger-ui .btn.authorize { color: #1a6b45; border-color: #1a6b45; }
.swagger-ui .btn.authorize svg { fill: #1a6b45; }
.swagger-ui .model .property.primitive, .swagger-ui .model span.prop-type { color: #4b2e83; }
@media (max-width: 640px) {
  .swagger-ui .wrapper { padding: 0 12px; }
  .swagger-ui .opblock .opblock-summary { flex-wrap: wrap; }
  .swagger-ui .opblock .opblock-summary-path { max-width: 100%; word-break: break-all; flex-shrink: 1; }
  .swagger-ui .info .title { font-size: 24px; }
  .swagger-ui .scheme-container .schemes { flex-wrap: wrap; gap: 8px; }
  .swagger-ui table { display: block; overflow-x: auto; }
}`;

/**
 * Accessible names Swagger UI does not give (axe: image-alt, select-name), set as it draws them: its logo, the
 * servers list and each response's list of examples.
 */
export const docsNamesJs = `new MutationObserver(function () {
  var logo = document.querySelector('.topbar a.link img:not([alt])');
  if (logo) logo.alt = 'Cobro';
  var servers = document.querySelector('#servers:not([aria-label])');
  if (servers) servers.setAttribute('aria-label', 'Server');
  document.querySelectorAll('select.examples-select-element:not([aria-label])').forEach(function (select) {
    select.setAttribute('aria-label', 'Example');
  });
}).observe(document.documentElement, { childList: true, subtree: true });`;

/** The page: Swagger UI's files with `?v=` their content's hash, and what a phone and a screen reader need. */
export function docsIndexHtml(title: string, version: string, themeCss: readonly string[]): string {
  const url = (file: string) => `${staticPrefix}${file}?v=${version}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title.replace(/[<>&"]/g, '')}</title>
${[...styles, ...themeCss.map((f) => `theme/${f}`)].map((f) => `<link rel="stylesheet" href="${url(f)}">`).join('\n')}
<link rel="icon" type="image/svg+xml" href="${url('theme/favicon.svg')}" sizes="any">
</head>
<body>
<main id="swagger-ui"></main>
${scripts.map((f) => `<script src="${url(f)}" charset="utf-8"></script>`).join('\n')}
</body>
</html>
`;
}

/** One hash over every file the page loads, read through the app: it changes whenever any of them does. */
export async function docsAssetsVersion(
  app: FastifyInstance,
  themeCss: readonly string[],
): Promise<string> {
  const hash = crypto.createHash('sha256');
  for (const file of [
    ...styles,
    ...themeCss.map((f) => `theme/${f}`),
    ...scripts,
    'theme/favicon.svg',
  ]) {
    const answer = await app.inject({ method: 'GET', url: `${staticPrefix}${file}` });
    if (answer.statusCode !== 200)
      throw new Error(`docs asset ${file} answered ${answer.statusCode}`);
    hash.update(file).update(answer.rawPayload);
  }
  return hash.digest('hex').slice(0, 16);
}

/** `immutable` for a file asked for with the current version; the page and the document are checked each time. */
export function docsCacheControl(
  request: FastifyRequest,
  reply: FastifyReply,
  version: string,
): void {
  const [pathname, query = ''] = request.url.split('?', 2) as [string, string | undefined];
  if (reply.statusCode !== 200) return;
  if (pathname.startsWith(staticPrefix)) {
    if (new URLSearchParams(query).get('v') === version)
      reply.header('cache-control', versionedCacheControl);
  } else {
    reply.header('cache-control', 'no-cache');
  }
}
