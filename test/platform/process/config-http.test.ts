// HTTP timeouts and the rate limit from the environment (decision 072): documented defaults, overrides, bad values named.
import { describe, expect, it } from 'vitest';
import { httpLimits, limits, transactionLimits } from '../../../src/limits/index.ts';
import { loadConfig } from '../../../src/platform/process/config.ts';

describe('HTTP timeouts and rate limit configuration', () => {
  it('defaults to the values in src/limits/', () => {
    const r = loadConfig({});
    if (!r.ok) throw new Error(r.errors.join('; '));
    expect(r.config.httpTimeouts).toEqual({
      requestMs: httpLimits.requestTimeoutMsDefault,
      headersMs: httpLimits.headersTimeoutMsDefault,
      connectionMs: httpLimits.connectionTimeoutMsDefault,
      keepAliveMs: httpLimits.keepAliveTimeoutMsDefault,
    });
    expect(r.config.rateLimitPerMinute).toBe(httpLimits.rateLimitPerMinuteDefault);
  });

  it('takes overrides, lets a short request timeout pull the headers timeout down, and turns the limit off with 0', () => {
    const r = loadConfig({
      HTTP_REQUEST_TIMEOUT_MS: '5000',
      HTTP_CONNECTION_TIMEOUT_MS: '9000',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000',
      RATE_LIMIT_PER_MINUTE: '0',
    });
    if (!r.ok) throw new Error(r.errors.join('; '));
    expect(r.config.httpTimeouts).toEqual({
      requestMs: 5000,
      headersMs: 5000,
      connectionMs: 9000,
      keepAliveMs: 1000,
    });
    expect(r.config.rateLimitPerMinute).toBeNull();
  });

  it('names every bad value', () => {
    const r = loadConfig({
      HTTP_REQUEST_TIMEOUT_MS: '0',
      HTTP_CONNECTION_TIMEOUT_MS: '1e3',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: 'soon',
      RATE_LIMIT_PER_MINUTE: '-1',
    });
    expect(r.ok).toBe(false);
    const text = r.ok ? '' : r.errors.join('\n');
    for (const name of [
      'HTTP_REQUEST_TIMEOUT_MS',
      'HTTP_CONNECTION_TIMEOUT_MS',
      'HTTP_KEEP_ALIVE_TIMEOUT_MS',
      'RATE_LIMIT_PER_MINUTE',
    ])
      expect(text).toContain(name);
    const headers = loadConfig({
      HTTP_REQUEST_TIMEOUT_MS: '2000',
      HTTP_HEADERS_TIMEOUT_MS: '3000',
    });
    expect(headers.ok ? '' : headers.errors.join('\n')).toContain(
      'HTTP_HEADERS_TIMEOUT_MS (3000) must not exceed HTTP_REQUEST_TIMEOUT_MS (2000)',
    );
  });

  it("takes IDEMPOTENCY_LEASE_MS from 1 s up to the key's life, 60 s by default", () => {
    const r = loadConfig({});
    expect(r.ok && r.config.idempotencyLeaseMs).toBe(limits.idempotencyLeaseMs);
    const short = loadConfig({ IDEMPOTENCY_LEASE_MS: '2000' });
    expect(short.ok && short.config.idempotencyLeaseMs).toBe(2000);
    for (const bad of ['999', '1e3', String(limits.idempotencyTtlMs)]) {
      const refused = loadConfig({ IDEMPOTENCY_LEASE_MS: bad });
      expect(refused.ok ? '' : refused.errors.join('\n')).toContain('IDEMPOTENCY_LEASE_MS');
    }
  });

  it('refuses in production an IDEMPOTENCY_LEASE_MS shorter than a stored-card charge may take (decision 870)', () => {
    const production = {
      COBRO_MODE: 'production',
      COBRO_SECRET_KEY: 'a7'.repeat(32),
      PUBLIC_BASE_URL: 'https://pay.example.com',
    };
    const min = limits.idempotencyLeaseMsProductionMin;
    expect(min).toBeGreaterThanOrEqual(2 * transactionLimits.acquirer.requestTimeoutMs);
    const refused = loadConfig({ ...production, IDEMPOTENCY_LEASE_MS: String(min - 1) });
    expect(refused.ok ? [] : refused.errors).toEqual([
      `IDEMPOTENCY_LEASE_MS must be at least ${min} in production mode (a stored-card charge waits on the acquirer within it), got ${min - 1}`,
    ]);
    const atMin = loadConfig({ ...production, IDEMPOTENCY_LEASE_MS: String(min) });
    expect(atMin.ok && atMin.config.idempotencyLeaseMs).toBe(min);
    const byDefault = loadConfig(production);
    expect(byDefault.ok && byDefault.config.idempotencyLeaseMs).toBe(limits.idempotencyLeaseMs);
    // The sandbox keeps the short leases tests use for killed servers.
    const sandbox = loadConfig({ IDEMPOTENCY_LEASE_MS: '2000' });
    expect(sandbox.ok && sandbox.config.idempotencyLeaseMs).toBe(2000);
  });

  it('takes ATTEMPT_LEASE_MS from 1 s up to its 2-minute default, never longer (decision 760)', () => {
    const r = loadConfig({});
    expect(r.ok && r.config.attemptLeaseMs).toBe(transactionLimits.attemptLeaseMs);
    const short = loadConfig({ ATTEMPT_LEASE_MS: '3000' });
    expect(short.ok && short.config.attemptLeaseMs).toBe(3000);
    for (const bad of ['999', String(transactionLimits.attemptLeaseMs + 1)]) {
      const refused = loadConfig({ ATTEMPT_LEASE_MS: bad });
      expect(refused.ok ? '' : refused.errors.join('\n')).toContain('ATTEMPT_LEASE_MS');
    }
  });
});
