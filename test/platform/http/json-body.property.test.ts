// The JSON body parser skips its reviver for texts that cannot need it (decision 250). A text the pattern lets
// through must parse to the same value, hold no key the reviver refuses, no number whose source text the input
// guards would be told about and no integer past 2^53 the reviver keeps as its digits (decision 755); the reviver
// path stays the one every other text takes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  duplicateKey,
  keysHeld,
  needsReviver,
  numberTextOf,
  parseJsonBody,
} from '../../../src/platform/http/json-body.ts';

/** What the reviver would note or refuse in `text`: poisoned keys, and numbers whose text is not String(value). */
function reviverFindings(text: string): string[] {
  const findings: string[] = [];
  JSON.parse(text, function (
    this: unknown,
    key: string,
    value: unknown,
    context?: { source?: string },
  ) {
    if (key === '__proto__' || key === 'constructor') findings.push(`key ${key}`);
    if (
      typeof value === 'number' &&
      context?.source !== undefined &&
      (context.source !== String(value) || /[eE]/.test(context.source))
    ) {
      findings.push(`number ${context.source}`);
    }
    if (typeof value === 'number' && keptAsDigits(value, context?.source))
      findings.push(`digits ${context?.source}`);
    return value;
  } as (key: string, value: unknown) => unknown);
  return findings;
}

/** An integer in plain digits past 2^53, which the parser keeps as its text (decision 755). */
function keptAsDigits(value: number, source: string | undefined): boolean {
  return !Number.isSafeInteger(value) && /^-?[0-9]+$/.test(source ?? '');
}

/** JSON.parse, with plain digits past 2^53 kept as their text, as the parser does. */
function parseKeepingDigits(text: string): unknown {
  return JSON.parse(text, ((_key: string, value: unknown, context?: { source?: string }) =>
    typeof value === 'number' && keptAsDigits(value, context?.source)
      ? context?.source
      : value) as (key: string, value: unknown) => unknown);
}

function parsed(text: string): { error: Error | null; value: unknown } {
  let out: { error: Error | null; value: unknown } = { error: null, value: undefined };
  parseJsonBody({} as never, text, (error, value) => {
    out = { error, value };
  });
  return out;
}

/** Numbers as JSON writes them, the awkward spellings included. */
const numberText = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
  fc.constantFrom(
    '-0',
    '0.0',
    '1.50',
    '1e3',
    '1E-2',
    '-1e+2',
    '9007199254740993',
    '12345678901234567890',
    '100',
    '-7',
  ),
  fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }).map(String),
);
/** An escaped `__proto__`, written into the text as it is (every other key goes through JSON.stringify). */
const escapedProto = '\\u005f_proto__';
const key = fc.oneof(
  fc.string(),
  fc.constantFrom('__proto__', 'constructor', escapedProto, 'amount', 'prototype'),
);
/** JSON texts built from pieces, so that number spellings and key escapes survive (JSON.stringify would normalise them). */
const jsonText: fc.Arbitrary<string> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    numberText,
    fc.string().map((s) => JSON.stringify(s)),
    fc.constantFrom('true', 'false', 'null'),
    tie('object'),
    tie('array'),
  ),
  // Keys unique per object (the escaped `__proto__` is the same key as the plain one): a duplicate is refused below.
  object: fc
    .uniqueArray(fc.tuple(key, tie('value')), {
      maxLength: 4,
      selector: ([k]) => (k === escapedProto ? '__proto__' : k),
    })
    .map(
      (entries) =>
        `{${entries.map(([k, v]) => `${k === escapedProto ? `"${k}"` : JSON.stringify(k)}:${v as string}`).join(',')}}`,
    ),
  array: fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
})).object as fc.Arbitrary<string>;

describe('JSON body parser without its reviver', () => {
  it('lets through only texts in which the reviver would find nothing', () => {
    fc.assert(
      fc.property(jsonText, (text) => {
        if (!needsReviver(text)) expect(reviverFindings(text)).toEqual([]);
      }),
      { numRuns: 3000 },
    );
  });

  it('parses every text without a poisoned key to the same value, through either path', () => {
    fc.assert(
      fc.property(jsonText, (text) => {
        if (reviverFindings(text).some((f) => f.startsWith('key '))) return;
        const { error, value } = parsed(text);
        expect(error).toBeNull();
        expect(value).toEqual(parseKeepingDigits(text));
      }),
      { numRuns: 1000 },
    );
  });

  it('refuses a key written twice in any object, at any depth, and nothing else', () => {
    // An object that writes one of its keys twice, at the top or inside `{"w":[...]}`.
    const value = jsonText.map((text) => text);
    const withDuplicate = fc
      .tuple(
        fc.uniqueArray(fc.tuple(fc.string(), value), {
          minLength: 1,
          maxLength: 4,
          selector: ([k]) => k,
        }),
        fc.nat(),
        fc.boolean(),
      )
      .map(([entries, pick, nested]) => {
        const key = entries[pick % entries.length]![0];
        const object = `{${[...entries, [key, '1'] as const].map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
        return nested ? { text: `{"w":[0,${object}]}`, key: `w.1.${key}` } : { text: object, key };
      });
    fc.assert(
      fc.property(withDuplicate, ({ text, key }) => {
        if (reviverFindings(text).some((f) => f.startsWith('key '))) return;
        expect(duplicateKey(text, keysHeld(JSON.parse(text))!)).toBe(key);
        const { error } = parsed(text);
        expect(error).toMatchObject({ message: `${key}:duplicate key` });
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(jsonText, (text) => {
        if (reviverFindings(text).some((f) => f.startsWith('key '))) return;
        expect(duplicateKey(text, keysHeld(JSON.parse(text))!)).toBeNull();
      }),
      { numRuns: 1000 },
    );
    expect(parsed('{"a":1,"b":{"c":[{"d":1,"\\u0064":2}]}}').error).toMatchObject({
      message: 'b.c.0.d:duplicate key',
    });
    expect(parsed('{"s":"\\":\\"","t":"\\"a\\":1"}').error).toBeNull();
  });

  it('still notes number texts and refuses poisoned keys', () => {
    const body = parsed('{"amount":1e3,"order":"a"}').value as object;
    expect(numberTextOf(body, 'amount')).toBe('1e3');
    expect(parsed('{"a":{"\\u005f_proto__":{}}}').error).not.toBeNull();
    expect(parsed('{"constructor":{"prototype":{}}}').error).not.toBeNull();
    expect(
      needsReviver(
        JSON.stringify({
          email: 'payer@example.com',
          order: 'bench-7',
          subject: 'Bench sale',
          amount: 25000,
        }),
      ),
    ).toBe(false);
  });
});
