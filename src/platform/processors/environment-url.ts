// The `--environment` of an account's Transbank keys: `integration`, `production` or the URL of a Webpay REST host,
// never with a user or password in it (decision 982), and a stored one as shown, any user and password as `***`.
import { transactionLimits } from '../../limits/index.ts';

/** Transbank's Webpay hosts, the SDK's `Environment` values (test/checkout/webpay-plus.test.ts checks they are), kept
 *  here so that naming them never loads the SDK: the SDK (axios and about 100 modules) is imported by the first
 *  production payment through Webpay (decision 240). */
export const webpayEnvironments = {
  integration: 'https://webpay3gint.transbank.cl',
  production: 'https://webpay3g.transbank.cl',
} as const;

/** The host an `--environment` value names, or null when it names none. */
export function environmentUrl(environment: string): string | null {
  if (environment === 'integration' || environment === 'production')
    return webpayEnvironments[environment];
  if (environment.length > transactionLimits.acquirer.environmentUrlLengthMax) return null;
  try {
    const u = new URL(environment);
    if (
      (u.protocol !== 'http:' && u.protocol !== 'https:') ||
      u.search !== '' ||
      u.hash !== '' ||
      u.username !== ''
    )
      return null;
    return environment.replace(/\/+$/, '');
  } catch {
    return null;
  }
}

/** Whether an `--environment` URL carries a user or a password (`https://:pw@host`), refused (decision 982). */
function hasUserinfo(environment: string): boolean {
  try {
    const u = new URL(environment);
    return u.username !== '' || u.password !== '';
  } catch {
    return false;
  }
}

/** A stored environment as shown: a URL's user and password, if an earlier version kept any, as `***` (decision 982). */
export function shownEnvironment(environment: string): string {
  if (!hasUserinfo(environment)) return environment;
  const u = new URL(environment);
  u.username = '';
  u.password = '';
  return `${u.protocol}//***@${u.href.slice(u.protocol.length + 2)}`;
}

/** The `--environment` check of set-processor's Transbank keys; null when it is fine. */
export function environmentError(environment: string): string | null {
  if (hasUserinfo(environment))
    return '--environment must not carry a user or password (user:password@ before the host): give the URL without them';
  if (environmentUrl(environment) === null)
    return '--environment must be integration, production or an http(s) URL';
  return null;
}
