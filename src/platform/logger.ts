import pino, { type Logger, type LoggerOptions } from 'pino';
import type { LogLevel } from './config.ts';

// Card data never reaches a log line: request bodies are not logged, and these paths are redacted wherever they appear.
const redact = ['req.headers.authorization', 'req.headers.sign', '*.card_number', '*.cvv', '*.password', '*.privateToken', '*.webhookSecret'];

/** The service logger's options: its level, the redacted paths and the base bindings. */
export function loggerOptions(level: LogLevel): LoggerOptions {
  return { level, redact, base: { service: 'cobro' } };
}

export function createLogger(level: LogLevel): Logger {
  return pino(loggerOptions(level));
}
