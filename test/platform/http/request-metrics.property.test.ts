// The request series of /metrics are tallied by Cobro (decision 360); the registry must write them byte for byte as
// it wrote prom-client's own Counter and Histogram fed the same requests: names, help, label order, cumulative
// buckets (a value on a bound counts in it), `+Inf`, sum, count, and the series in the order they first appeared.
import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import {
  RequestMetrics,
  requestDurationBucketsSeconds,
  requestDurationName,
  requestsTotalName,
} from '../../../src/platform/http/request-metrics.ts';

interface Answered {
  readonly method: string;
  readonly route: string;
  readonly statusCode: number;
  readonly seconds: number;
}

function viaPromClient(answered: readonly Answered[]): Registry {
  const registry = new Registry();
  const requests = new Counter({
    name: requestsTotalName,
    help: 'HTTP requests answered, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status_code'],
    registers: [registry],
  });
  const durations = new Histogram({
    name: requestDurationName,
    help: 'Time to answer an HTTP request, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status_code'],
    registers: [registry],
  });
  for (const a of answered) {
    const labels = { method: a.method, route: a.route, status_code: String(a.statusCode) };
    requests.inc(labels);
    durations.observe(labels, a.seconds);
  }
  return registry;
}

function viaTally(answered: readonly Answered[]): Registry {
  const registry = new Registry();
  const tally = new RequestMetrics();
  tally.register(registry);
  for (const a of answered) tally.record(a.method, a.route, a.statusCode, a.seconds);
  return registry;
}

// Bounds themselves, values just past them, zero, and values past the last bound (counted only in +Inf).
const seconds = fc.oneof(
  fc.constantFrom(0, ...requestDurationBucketsSeconds, 10.5, 60),
  fc.constantFrom(...requestDurationBucketsSeconds).map((b) => b + Number.EPSILON * 8),
  fc.double({ min: 0, max: 20, noNaN: true }),
);
const answered = fc.record({
  method: fc.constantFrom('GET', 'POST', 'DELETE'),
  route: fc.constantFrom(
    '/api/transaction',
    '/api/transaction/:id',
    'unmatched',
    '/api/a "quoted" \\ route',
  ),
  statusCode: fc.constantFrom(200, 201, 400, 404, 500),
  seconds,
});

describe('the request series of /metrics', () => {
  it('are written as prom-client wrote its Counter and Histogram', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(answered, { maxLength: 40 }), async (list) => {
        expect(await viaTally(list).metrics()).toBe(await viaPromClient(list).metrics());
      }),
      { numRuns: 300 },
    );
  });

  it('give the same JSON form', async () => {
    const list: Answered[] = [
      { method: 'POST', route: '/api/transaction', statusCode: 200, seconds: 0.003 },
      { method: 'GET', route: 'unmatched', statusCode: 404, seconds: 12 },
      { method: 'POST', route: '/api/transaction', statusCode: 200, seconds: 0.25 },
    ];
    const strip = (metrics: unknown) => JSON.parse(JSON.stringify(metrics)) as unknown;
    expect(strip(await viaTally(list).getMetricsAsJSON())).toEqual(
      strip(await viaPromClient(list).getMetricsAsJSON()),
    );
  });

  it('are emptied by a registry reset', async () => {
    const registry = viaTally([{ method: 'GET', route: '/x', statusCode: 200, seconds: 0.1 }]);
    registry.resetMetrics();
    expect(await registry.metrics()).toBe(await viaPromClient([]).metrics());
  });
});
