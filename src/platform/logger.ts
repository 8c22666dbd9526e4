import pino, { type Logger } from 'pino';
import type { LogLevel } from './config.ts';

// Card data never reaches a log line: request bodies are not logged, and these paths are redacted wherever they appear.
const redact = ['req.headers.authorization', 'req.headers.sign', '*.card_number', '*.cvv', '*.password', '*.privateToken', '*.webhookSecret'];

export function createLogger(level: LogLevel): Logger {
  return pino({ level, redact, base: { service: 'cobro' } });
}
