// Decision 320: the per-request child logger binds the request id without a redaction pass. Its lines must be the
// ones pino's own child writes, byte for byte, and redaction must still apply to what a request logs.
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { FastifyBaseLogger } from 'fastify';
import { loggerOptions } from '../../../src/platform/process/logger.ts';
import { requestChildLogger } from '../../../src/platform/http/request-logger.ts';

function capturing(): { logger: FastifyBaseLogger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  // No timestamp, so two lines written a moment apart can be compared whole.
  return {
    logger: pino({ ...loggerOptions('info'), timestamp: false }, stream) as FastifyBaseLogger,
    lines,
  };
}

const ids = [
  'req_0123456789abcdef01234567',
  'client.id:with-dots_and:colons',
  'a',
  'quote " and \\ back',
  'ünïcode ✓',
  '',
];

describe('the per-request child logger', () => {
  it("writes what pino's child writes, for every request id", () => {
    for (const id of ids) {
      const { logger, lines } = capturing();
      // Fastify calls the factory with `{}` as the options when the route sets none.
      logger
        .child({ reqId: id }, {})
        .info({ body: { card_number: '4051885600446623', amount: 1 }, privateToken: 'x' }, 'line');
      requestChildLogger(logger, { reqId: id }, {}).info(
        { body: { card_number: '4051885600446623', amount: 1 }, privateToken: 'x' },
        'line',
      );
      expect(lines).toHaveLength(2);
      expect(lines[1]).toBe(lines[0]);
      expect(JSON.parse(lines[1]!)).toMatchObject({
        reqId: id,
        service: 'cobro',
        body: { card_number: '[Redacted]', amount: 1 },
      });
      expect(lines[1]).not.toContain('4051885600446623');
    }
  });

  it("leaves any other binding or a route's log level to pino", () => {
    const { logger, lines } = capturing();
    requestChildLogger(logger, { reqId: 'r1' }, { level: 'warn' }).info('dropped at warn');
    requestChildLogger(logger, { reqId: 'r2' }, { level: 'warn' }).warn('kept');
    logger.child({ reqId: 'r3', card_number: '4051885600446623' }, {}).info('pino');
    requestChildLogger(logger, { reqId: 'r3', card_number: '4051885600446623' }, {}).info('pino');
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[0]!)).toMatchObject({ reqId: 'r2', msg: 'kept' });
    expect(lines[2]).toBe(lines[1]);
  });
});
