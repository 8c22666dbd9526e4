// The optional second factor of a dashboard user (decision 541): TOTP (RFC 6238, 30 s, 6 digits, SHA-1, what every
// authenticator app reads) with otpauth. The time is the injected clock's, so tests move it.
import { Secret, TOTP } from 'otpauth';

const issuer = 'Cobro';
/** One step either side: a code typed just as it changed still counts. */
const windowSteps = 1;
const period = 30;

function totpOf(secretBase32: string, label: string): TOTP {
  return new TOTP({
    issuer,
    label,
    algorithm: 'SHA1',
    digits: 6,
    period,
    secret: Secret.fromBase32(secretBase32),
  });
}

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The otpauth:// URI an authenticator app adds the account from. */
export function totpUri(secretBase32: string, email: string): string {
  return totpOf(secretBase32, email).toString();
}

/**
 * The 30-second step `code` belongs to (within one step of `now`), or null when it is no code of this secret. The
 * caller accepts a step only once (decision 580).
 */
export function totpStep(secretBase32: string, code: string, now: Date): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totpOf(secretBase32, '').validate({
    token: code,
    timestamp: now.getTime(),
    window: windowSteps,
  });
  return delta === null ? null : TOTP.counter({ period, timestamp: now.getTime() }) + delta;
}

/** The code for `now`: what an authenticator app would show (tests sign in with it). */
export function totpCode(secretBase32: string, now: Date): string {
  return totpOf(secretBase32, '').generate({ timestamp: now.getTime() });
}
