// The HTTP server's timeouts (decision 072), so that a client sending slowly cannot hold a connection open:
//  - headers must arrive within `headersMs` (Node's headersTimeout: slowloris),
//  - the whole request, body included, within `requestMs` (a body trickled at 1 byte/s is answered 408 and cut),
//  - a socket silent for `connectionMs` mid-request or mid-response is closed (a client that stops reading),
//  - an idle keep-alive socket is closed after `keepAliveMs`.
// Node looks for requests past their timeouts every `timeoutCheckIntervalMs` (its default, 30 s, would let a
// trickle outlive a short request timeout by that much).
import type http from 'node:http';
import { httpLimits } from '../../limits/index.ts';
import type { HttpTimeouts } from '../process/config.ts';

export interface HttpServerOptions {
  readonly connectionTimeout: number;
  readonly requestTimeout: number;
  readonly keepAliveTimeout: number;
  readonly http: http.ServerOptions;
}

/** Fastify's own options plus the http.Server ones it has no name for. */
export function httpServerOptions(timeouts: HttpTimeouts): HttpServerOptions {
  return {
    connectionTimeout: timeouts.connectionMs,
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    http: {
      headersTimeout: timeouts.headersMs,
      connectionsCheckingInterval: Math.min(httpLimits.timeoutCheckIntervalMs, timeouts.headersMs),
    },
  };
}
