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

/** The service logger's options: its level, the redacted paths and the base bindings. */
export function loggerOptions(level: LogLevel): LoggerOptions {
  return { level, redact, base: { service: 'cobro' } };
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
function prettyStream(): DestinationStream {
  const pretty = createRequire(import.meta.url)('pino-pretty') as (
    options: Record<string, unknown>,
  ) => DestinationStream;
  return pretty({
    sync: true,
    colorize: process.stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname,service',
  });
}

export function createLogger(level: LogLevel, format: LogFormat = 'json'): Logger {
  return prettyLogs(format)
    ? pino(loggerOptions(level), prettyStream())
    : pino(loggerOptions(level));
}
