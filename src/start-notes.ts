// What `cobro serve` tells the person who started it once it listens (issue 32): where to go next, and in
// production what the go-live guide would change. Text only; server.ts reads what they name and decides when to
// print them.
import type { Logger } from 'pino';
import type { Config } from './platform/process/config.ts';
import type { AccountView } from './modules/accounts/service.ts';
import type {
  IntegrationAccount,
  TransbankProduct,
} from './platform/processors/transbank-environments.ts';

/** The lines printed on stdout once the server listens: the pages to open and a first signed call. */
export function nextSteps(config: Config, demo: AccountView | null): string {
  const base = config.publicBaseUrl;
  const lines = [
    '',
    `Cobro is ready (${config.mode}) at ${base}`,
    `  Dashboard:  ${base}/dashboard`,
    `  API docs:   ${base}/docs`,
  ];
  if (config.mode === 'sandbox') {
    const pub = demo?.publicToken ?? '<public token>';
    const priv = demo?.privateToken ?? '<private token>';
    lines.push(
      '  A first signed call (README "A first signed call"):',
      `    SIGN=$(bin/cobro sign --token ${priv} --path /api/account)`,
      `    curl -s ${base}/api/account -H "Authorization: Bearer ${pub}" -H "Sign: $SIGN"`,
      '  A first sale, paid with a test card, and a payout: README "Your first sale and payout"',
    );
    if (demo === null)
      lines.push('  Tokens: bin/cobro accounts list, then bin/cobro accounts show <id>');
  } else {
    lines.push('  Going live: docs/going-live.md');
  }
  return `${lines.join('\n')}\n\n`;
}

/** Production on the embedded database or behind a plain-http address: named at every start, with the guide. */
export function warnProductionSetup(
  logger: Logger,
  config: Config,
  engine: 'pglite' | 'postgres',
): void {
  if (config.mode !== 'production') return;
  if (engine === 'pglite') {
    logger.warn(
      { guide: 'docs/going-live.md' },
      'production on the embedded PGlite database (one process, no replication, no point-in-time recovery: `cobro backup` takes whole copies only): set DATABASE_URL to a PostgreSQL; see docs/going-live.md',
    );
  }
  if (config.publicBaseUrl.startsWith('http://')) {
    logger.warn(
      { publicBaseUrl: config.publicBaseUrl, guide: 'docs/going-live.md' },
      'production with a plain-http PUBLIC_BASE_URL: payers would send card pages and tokens unencrypted; serve HTTPS through a reverse proxy, see docs/going-live.md',
    );
  }
  for (const [origin, accounts] of config.callbackTrustedOrigins)
    if (accounts === 'every account')
      logger.warn(
        { origin, guide: 'docs/callbacks.md#where-callbacks-may-go' },
        `CALLBACK_TRUSTED_ORIGINS trusts ${origin} for every account: any merchant's callbacks may be sent there (only the status of its answers is kept, decision 987); name the accounts it serves (${origin}@acc…) to refuse the others`,
      );
}

const productNames: Readonly<Record<TransbankProduct, string>> = {
  webpay_plus: 'Webpay Plus',
  oneclick_mall: 'Oneclick Mall',
};

/**
 * Production accounts whose Transbank keys name the integration (test) environment (decision 984): allowed, the way to
 * try a deployment, but their sales are paid with Transbank's public test cards and no money; named at every start.
 */
export function warnIntegrationAccounts(
  logger: Logger,
  config: Config,
  found: { readonly accounts: readonly IntegrationAccount[]; readonly total: number },
): void {
  if (config.mode !== 'production') return;
  for (const a of found.accounts)
    logger.warn(
      { account: a.accountId, processors: a.products, guide: 'docs/production-payments.md' },
      `account ${a.accountId} (${a.name}) takes payments on Transbank's integration environment (${a.products.map((p) => productNames[p]).join(', ')}): Transbank's public test cards pay its sales and no money moves; give it its production keys with cobro accounts set-processor --environment production before it sells`,
    );
  const rest = found.total - found.accounts.length;
  if (rest > 0)
    logger.warn(
      { more: rest, guide: 'docs/production-payments.md' },
      `${rest} more account${rest === 1 ? '' : 's'} take${rest === 1 ? 's' : ''} payments on Transbank's integration environment: cobro accounts show ID says it of each`,
    );
}
