// The optional second factor of a dashboard user (decision 541): TOTP (RFC 6238, 30 s, 6 digits, SHA-1, what every
// authenticator app reads) with otpauth. The time is the injected clock's, so tests move it.
import { Secret, TOTP } from 'otpauth';

const issuer = 'Cobro';
/** One step either side: a code typed just as it changed still counts. */
const windowSteps = 1;

function totpOf(secretBase32: string, label: string): TOTP {
  return new TOTP({
    issuer,
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
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

export function totpValid(secretBase32: string, code: string, now: Date): boolean {
  if (!/^\d{6}$/.test(code)) return false;
  const delta = totpOf(secretBase32, '').validate({
    token: code,
    timestamp: now.getTime(),
    window: windowSteps,
  });
  return delta !== null;
}

/** The code for `now`: what an authenticator app would show (tests sign in with it). */
export function totpCode(secretBase32: string, now: Date): string {
  return totpOf(secretBase32, '').generate({ timestamp: now.getTime() });
}
