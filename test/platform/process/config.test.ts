import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/platform/process/config.ts';
import { formatDate, formatTimestamp, parseLocal } from '../../../src/platform/time/time-format.ts';

describe('configuration from the environment', () => {
  it('has the documented defaults', () => {
    const r = loadConfig({});
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      databaseUrl: null,
      mode: 'sandbox',
      timeZone: 'America/Santiago',
      publicBaseUrl: 'http://127.0.0.1:8080',
      logLevel: 'info',
      settlementDelayDays: 1,
    });
    expect(r.config.dataDir.endsWith('/data')).toBe(true);
  });

  it('names every bad value', () => {
    const r = loadConfig({
      PORT: '70000',
      COBRO_MODE: 'live',
      TIMEZONE: 'Mars/Olympus',
      LOG_LEVEL: 'loud',
      DATABASE_URL: 'mysql://x',
      PUBLIC_BASE_URL: 'ftp://x',
      COBRO_SECRET_KEY: 'short',
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const text = r.errors.join('\n');
    for (const name of [
      'PORT',
      'COBRO_MODE',
      'TIMEZONE',
      'LOG_LEVEL',
      'DATABASE_URL',
      'PUBLIC_BASE_URL',
      'COBRO_SECRET_KEY',
    ])
      expect(text).toContain(name);
  });

  it('requires a secret key in production', () => {
    const r = loadConfig({ COBRO_MODE: 'production' });
    expect(r.ok).toBe(false);
    const ok = loadConfig({
      COBRO_MODE: 'production',
      COBRO_SECRET_KEY: 'ab'.repeat(32),
      PUBLIC_BASE_URL: 'https://pay.example.com/',
    });
    expect(ok.ok && ok.config.publicBaseUrl).toBe('https://pay.example.com');
  });

  it('refuses an http PUBLIC_BASE_URL in production unless COBRO_ALLOW_INSECURE_PUBLIC_URL=1 names the risk', () => {
    const key = 'ab'.repeat(32);
    for (const base of [undefined, 'http://pay.example.com', 'HTTP://pay.example.com']) {
      const r = loadConfig({
        COBRO_MODE: 'production',
        COBRO_SECRET_KEY: key,
        ...(base === undefined ? {} : { PUBLIC_BASE_URL: base }),
      });
      expect(r.ok).toBe(false);
      if (!r.ok)
        expect(r.errors).toEqual([
          expect.stringMatching(
            /^PUBLIC_BASE_URL must be https in production mode, got "http.*COBRO_ALLOW_INSECURE_PUBLIC_URL=1/i,
          ),
        ]);
    }
    for (const allow of ['0', 'yes', ''])
      expect(
        loadConfig({
          COBRO_MODE: 'production',
          COBRO_SECRET_KEY: key,
          COBRO_ALLOW_INSECURE_PUBLIC_URL: allow,
        }).ok,
      ).toBe(false);
    expect(
      loadConfig({
        COBRO_MODE: 'production',
        COBRO_SECRET_KEY: key,
        COBRO_ALLOW_INSECURE_PUBLIC_URL: '1',
      }).ok,
    ).toBe(true);
    // Sandbox serves http as before.
    expect(loadConfig({ PUBLIC_BASE_URL: 'http://127.0.0.1:8080' }).ok).toBe(true);
  });

  it('reads CALLBACK_TRUSTED_ORIGINS as bare origins and names any entry that is more than one', () => {
    const ok = loadConfig({
      CALLBACK_TRUSTED_ORIGINS:
        ' http://127.0.0.1:4567 , https://erp.internal:8443,HTTPS://Erp.Internal:443',
    });
    expect(ok.ok && [...ok.config.callbackTrustedOrigins]).toEqual([
      ['http://127.0.0.1:4567', 'every account'],
      ['https://erp.internal:8443', 'every account'],
      ['https://erp.internal', 'every account'],
    ]);
    expect(loadConfig({}).ok && loadConfig({ CALLBACK_TRUSTED_ORIGINS: '' }).ok).toBe(true);
    for (const bad of [
      'https://erp.internal/notify',
      'https://erp.internal/',
      'ftp://erp.internal',
      'https://u:p@erp.internal',
      'erp.internal',
      'https://erp.internal?x=1',
    ]) {
      const r = loadConfig({ CALLBACK_TRUSTED_ORIGINS: bad });
      expect(r.ok, bad).toBe(false);
      if (!r.ok)
        expect(r.errors.join('\n')).toContain(
          `CALLBACK_TRUSTED_ORIGINS entries must be origins like https://erp.internal:8443 (or https://erp.internal:8443@acc0123456789abcdef0 for one account), got "${bad}"`,
        );
    }
    const many = loadConfig({
      CALLBACK_TRUSTED_ORIGINS: Array.from({ length: 21 }, (_, i) => `https://h${i}.internal`).join(
        ',',
      ),
    });
    expect(many.ok).toBe(false);
  });

  it('reads the accounts an origin names after "@" and names any entry whose accounts are wrong (decision 987)', () => {
    const one = 'acc0123456789abcdef0';
    const two = 'accfedcba9876543210f';
    const ok = loadConfig({
      CALLBACK_TRUSTED_ORIGINS: `http://127.0.0.1:4567@${one}, https://erp.internal:8443 @ ${one} | ${two}, https://crm.internal, http://127.0.0.1:4567@${one}`,
    });
    expect(ok.ok && [...ok.config.callbackTrustedOrigins]).toEqual([
      ['http://127.0.0.1:4567', new Set([one])],
      ['https://erp.internal:8443', new Set([one, two])],
      ['https://crm.internal', 'every account'],
    ]);
    const errorsOf = (raw: string) => {
      const r = loadConfig({ CALLBACK_TRUSTED_ORIGINS: raw });
      return r.ok ? '' : r.errors.join('\n');
    };
    expect(errorsOf('https://erp.internal@')).toContain(
      'CALLBACK_TRUSTED_ORIGINS entry "https://erp.internal@" names "": after "@" come account ids like acc0123456789abcdef0, separated by "|"',
    );
    expect(errorsOf(`https://erp.internal@${one}|Acme|${one}x`)).toContain(
      `names "Acme", "${one}x": after "@" come account ids`,
    );
    expect(errorsOf(`https://erp.internal/notify@${one}`)).toContain(
      `CALLBACK_TRUSTED_ORIGINS entries must be origins like https://erp.internal:8443 (or https://erp.internal:8443@acc0123456789abcdef0 for one account), got "https://erp.internal/notify@${one}"`,
    );
    expect(errorsOf(`https://erp.internal@${one}, https://erp.internal:443@${two}`)).toContain(
      'CALLBACK_TRUSTED_ORIGINS names https://erp.internal twice with different accounts',
    );
    expect(errorsOf(`https://erp.internal, https://erp.internal@${two}`)).toContain(
      'names https://erp.internal twice with different accounts',
    );
    const crowd = Array.from({ length: 21 }, (_, i) => `acc${i.toString(16).padStart(17, '0')}`);
    expect(errorsOf(`https://erp.internal@${crowd.join('|')}`)).toContain(
      'names 21 accounts, at most 20',
    );
  });

  it('reads an empty user part (https://@host) as before decision 987: the bare origin (decision 982)', () => {
    const one = 'acc0123456789abcdef0';
    const ok = loadConfig({
      CALLBACK_TRUSTED_ORIGINS: `https://@erp.internal:8443, HTTP://:@127.0.0.1:4567, https://@crm.internal@${one}`,
    });
    expect(ok.ok && [...ok.config.callbackTrustedOrigins]).toEqual([
      ['https://erp.internal:8443', 'every account'],
      ['http://127.0.0.1:4567', 'every account'],
      ['https://crm.internal', new Set([one])],
    ]);
    // A user or a password stays refused, and so does an entry that is only a user part.
    for (const bad of [
      'https://u@erp.internal',
      'https://:p@erp.internal',
      'https://@',
      `https://@@${one}`,
    ]) {
      const r = loadConfig({ CALLBACK_TRUSTED_ORIGINS: bad });
      expect(r.ok, bad).toBe(false);
      if (!r.ok) expect(r.errors.join('\n')).toMatch(`CALLBACK_TRUSTED_ORIGINS entr`);
      if (!r.ok) expect(r.errors.join('\n')).toContain(`"${bad}"`);
    }
  });
});

describe('timestamps in the service zone', () => {
  it('renders YYYY-MM-DD HH:MM:SS in America/Santiago across DST', () => {
    expect(formatTimestamp(new Date('2026-01-15T15:00:00Z'), 'America/Santiago')).toBe(
      '2026-01-15 12:00:00',
    );
    expect(formatTimestamp(new Date('2026-07-15T15:00:00Z'), 'America/Santiago')).toBe(
      '2026-07-15 11:00:00',
    );
    expect(formatDate(new Date('2026-01-01T02:00:00Z'), 'America/Santiago')).toBe('2025-12-31');
  });

  it('parses local input back to the same instant and refuses impossible dates', () => {
    expect(parseLocal('2026-01-15 12:00:00', 'America/Santiago')?.toISOString()).toBe(
      '2026-01-15T15:00:00.000Z',
    );
    expect(parseLocal('2026-07-15 11:00:00', 'America/Santiago')?.toISOString()).toBe(
      '2026-07-15T15:00:00.000Z',
    );
    expect(parseLocal('2026-02-30', 'America/Santiago')).toBeNull();
    expect(parseLocal('15-01-2026', 'America/Santiago')).toBeNull();
    expect(parseLocal('2026-01-15 25:00:00', 'America/Santiago')).toBeNull();
  });
});
