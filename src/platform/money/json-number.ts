// Where a minor-unit bigint becomes a JSON number, for the fields the seed types as numbers (amount_available,
// paymentData totals, a conciliation batch's sums). One amount (at most 14 digits) is a JS number by assertion.
// A balance or a sum has no such bound: money owed to a merchant is never refused for the size of its wallet
// (decision 720), so past 2^53 - 1 it stays a bigint, which the response serializer writes as its exact digits.
import assert from 'node:assert/strict';

const largestSafe = BigInt(Number.MAX_SAFE_INTEGER);

export function minorAsJsonNumber(minor: bigint): number {
  assert.ok(minor >= -largestSafe && minor <= largestSafe, 'amount fits a JSON number exactly');
  return Number(minor);
}

/** A JSON integer exact at any size: a number while it is a safe integer, else the bigint itself. */
export type ExactInteger = number | bigint;

/** A balance or a sum of amounts as a JSON integer (schema `ExactIntegerSchema` in platform/http/schemas.ts). */
export function minorAsExactInteger(minor: bigint): ExactInteger {
  return integerAsExact(minor);
}

/** Any integer that is not money (a sale's number) the same way, for an answer or a callback's payload (decision 815). */
export function integerAsExact(value: bigint): ExactInteger {
  return value >= -largestSafe && value <= largestSafe ? Number(value) : value;
}

// Node 21 and later (package.json: node 24); TypeScript's ES2024 library does not declare them yet.
const jsonRaw = JSON as unknown as { rawJSON(text: string): unknown };

/** A JSON value written as the given text by JSON.stringify and by the response serializer: a bigint's digits. */
export function rawJson(text: string): unknown {
  return jsonRaw.rawJSON(text);
}

function keepExactIntegers(_key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value !== 'number' || Number.isSafeInteger(value) || context?.source === undefined)
    return value;
  return /^-?\d+$/.test(context.source) ? rawJson(context.source) : value;
}

/**
 * JSON text parsed with every integer past 2^53 - 1 kept as its own digits (written back unchanged), where
 * JSON.parse alone would round it to a double naming another value: a stored callback body shown again (decision
 * 930).
 */
export function parseJsonExact(text: string): unknown {
  return JSON.parse(text, keepExactIntegers as (key: string, value: unknown) => unknown);
}
