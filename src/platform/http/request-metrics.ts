// The two per-request series of `/metrics` (requests by method, route and status; their durations as a histogram),
// tallied in one Map entry per series and handed to prom-client's registry only when it is scraped (decision 360).
// prom-client's own Counter and Histogram validate the labels, hash them into a key string and allocate a closure on
// every call, twice a request (the whole hook, switched off, was 1-6% of a create's server CPU). The registry writes
// these two exactly as it wrote prom-client's (names, help, label order, buckets, series order):
// `request-metrics.property.test.ts` compares the text.
import type { Metric, Registry } from 'prom-client';

/** prom-client's default histogram buckets, which the duration histogram has always used. */
export const requestDurationBucketsSeconds: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

export const requestsTotalName = 'cobro_http_requests_total';
export const requestDurationName = 'cobro_http_request_duration_seconds';

type SeriesLabels = {
  readonly method: string;
  readonly route: string;
  readonly status_code: string;
};

interface Series {
  readonly labels: SeriesLabels;
  count: number;
  sumSeconds: number;
  /** Observations per bucket, not cumulative; an observation past the last bound is in none (only in `count`). */
  readonly bucketCounts: number[];
}

/** A value of a metric as prom-client's registry reads it. */
interface MetricValue {
  readonly value: number;
  readonly labels: Readonly<Record<string, string | number>>;
  readonly metricName?: string;
  readonly sharedLabels?: SeriesLabels;
  /** A bucket's exemplar: none (exemplars are off), as prom-client writes it. */
  readonly exemplar?: null;
}

interface MetricData {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'histogram';
  readonly values: readonly MetricValue[];
  readonly aggregator: 'sum';
}

export class RequestMetrics {
  readonly #series = new Map<string, Series>();

  /** One answered request; `route` is the route's pattern (never the raw URL). */
  record(method: string, route: string, statusCode: number, seconds: number): void {
    // No method or status code holds a space, so the key names one series.
    const key = `${method} ${statusCode} ${route}`;
    let series = this.#series.get(key);
    if (series === undefined) {
      series = {
        labels: { method, route, status_code: String(statusCode) },
        count: 0,
        sumSeconds: 0,
        bucketCounts: requestDurationBucketsSeconds.map(() => 0),
      };
      this.#series.set(key, series);
    }
    series.count += 1;
    series.sumSeconds += seconds;
    for (let i = 0; i < requestDurationBucketsSeconds.length; i++) {
      if (seconds <= requestDurationBucketsSeconds[i]!) {
        series.bucketCounts[i]! += 1;
        break;
      }
    }
  }

  #requests(): MetricData {
    return {
      name: requestsTotalName,
      help: 'HTTP requests answered, by method, route pattern and status code.',
      type: 'counter',
      aggregator: 'sum',
      values: [...this.#series.values()].map((s) => ({ value: s.count, labels: s.labels })),
    };
  }

  /** As prom-client's Histogram gives it to the registry: the buckets cumulative, then `+Inf`, the sum and the count. */
  #durations(): MetricData {
    const values: MetricValue[] = [];
    for (const s of this.#series.values()) {
      let cumulative = 0;
      requestDurationBucketsSeconds.forEach((le, i) => {
        cumulative += s.bucketCounts[i]!;
        values.push({
          value: cumulative,
          labels: { le },
          metricName: `${requestDurationName}_bucket`,
          sharedLabels: s.labels,
          exemplar: null,
        });
      });
      values.push(
        {
          value: s.count,
          labels: { le: '+Inf' },
          metricName: `${requestDurationName}_bucket`,
          sharedLabels: s.labels,
          exemplar: null,
        },
        {
          value: s.sumSeconds,
          labels: {},
          metricName: `${requestDurationName}_sum`,
          sharedLabels: s.labels,
        },
        {
          value: s.count,
          labels: {},
          metricName: `${requestDurationName}_count`,
          sharedLabels: s.labels,
        },
      );
    }
    return {
      name: requestDurationName,
      help: 'Time to answer an HTTP request, by method, route pattern and status code.',
      type: 'histogram',
      aggregator: 'sum',
      values,
    };
  }

  /** Registers both series with the registry, in the order the Counter and the Histogram were registered. */
  register(registry: Registry): void {
    const requests = {
      name: requestsTotalName,
      get: async () => this.#requests(),
      reset: () => this.#series.clear(),
    };
    const durations = {
      name: requestDurationName,
      getForPromString: async () => this.#durations(),
      // The JSON form carries each value's series labels in its own labels, as prom-client's Histogram gives it.
      get: async () => {
        const data = this.#durations();
        return {
          ...data,
          values: data.values.map(({ sharedLabels, ...v }) => ({
            ...v,
            labels: { ...v.labels, ...sharedLabels },
          })),
        };
      },
      reset: () => this.#series.clear(),
    };
    registry.registerMetric(requests as unknown as Metric);
    registry.registerMetric(durations as unknown as Metric);
  }
}
