// Renders a command's answer to the exact bytes sent, before the commit, so the stored answer and the first
// answer are one string and a replay is byte-identical. Serialization uses the route's response schema for the
// status, as Fastify would when a handler returns the value or the error handler sends the envelope.
import type { FastifyReply } from 'fastify';
import type { ApiError } from '../errors/errors.ts';
import type { StoredAnswer } from '../idempotency/store.ts';

const jsonType = 'application/json; charset=utf-8';

function bytesOf(serialized: string | ArrayBuffer | Buffer): string {
  return typeof serialized === 'string'
    ? serialized
    : Buffer.from(serialized as ArrayBuffer).toString('utf8');
}

export function renderValue(reply: FastifyReply, value: unknown): StoredAnswer {
  reply.code(200);
  return { statusCode: 200, contentType: jsonType, body: bytesOf(reply.serialize(value)) };
}

export function renderError(reply: FastifyReply, error: ApiError): StoredAnswer {
  reply.code(error.httpStatus);
  return {
    statusCode: error.httpStatus,
    contentType: jsonType,
    body: bytesOf(reply.serialize(error.envelope())),
  };
}

export function sendAnswer(
  reply: FastifyReply,
  answer: StoredAnswer,
  headers: Readonly<Record<string, string>>,
): FastifyReply {
  for (const [name, value] of Object.entries(headers)) reply.header(name, value);
  // A string with a JSON content type is sent as is: Fastify does not serialize it again.
  return reply.code(answer.statusCode).header('content-type', answer.contentType).send(answer.body);
}
