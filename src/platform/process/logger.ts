import { createRequire } from 'node:module';
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import type { LogFormat, LogLevel } from './config.ts';

// Card data never reaches a log line: request bodies are not logged, and these paths are redacted wherever they appear.
const redact = [
  'req.headers.authorization',
  'req.headers.sign',
  '*.card_number',
  '*.cvv',
  '*.password',
  '*.privateToken',
  '*.webhookSecret',
];

/** A `token` query parameter is a credential (a dashboard invitation or reset link signs its holder in). */
const tokenInQuery = /([?&]token=)[^&#]*/gi;

interface LoggedRequest {
  readonly method: string;
  readonly url: string;
  readonly host?: string;
  readonly ip?: string;
  readonly socket?: { readonly remotePort?: number } | null;
}

/**
 * A request as its log lines show it: Fastify's own fields, the URL without the value of a `token` query parameter
 * (decision 835: a one-time link's token used to reach the log whole).
 */
function requestForLog(req: LoggedRequest): object {
  return {
    method: req.method,
    url: typeof req.url === 'string' ? req.url.replace(tokenInQuery, '$1[Redacted]') : req.url,
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/** The service logger's options: its level, the redacted paths, the request's serializer and the base bindings. */
export function loggerOptions(level: LogLevel): LoggerOptions {
  return { level, redact, serializers: { req: requestForLog }, base: { service: 'cobro' } };
}

/** Whether lines are written for a person: `pretty`, or `auto` on a terminal (LOG_FORMAT). */
export function prettyLogs(
  format: LogFormat,
  stdoutIsTty: boolean = process.stdout.isTTY === true,
): boolean {
  return format === 'pretty' || (format === 'auto' && stdoutIsTty);
}

/**
 * pino-pretty as a synchronous stream in this thread (no transport worker): loaded only when chosen, so a JSON
 * server never pays for it. Its time is the machine's local time; the line keeps the level and the message.
 */
function prettyStream(fd: 1 | 2): DestinationStream {
  const pretty = createRequire(import.meta.url)('pino-pretty') as (
    options: Record<string, unknown>,
  ) => DestinationStream;
  return pretty({
    destination: fd,
    sync: true,
    colorize: process.stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname,service',
  });
}

/**
 * `fd` 2 for an operator command: its stdout is its answer (`--json` piped into jq), so its log lines go to stderr
 * (decision 1145).
 */
export function createLogger(level: LogLevel, format: LogFormat = 'json', fd: 1 | 2 = 1): Logger {
  if (prettyLogs(format)) return pino(loggerOptions(level), prettyStream(fd));
  return fd === 1
    ? pino(loggerOptions(level))
    : pino(loggerOptions(level), pino.destination({ fd, sync: true }));
}
