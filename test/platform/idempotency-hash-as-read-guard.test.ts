// Decision 981, the guard decision 940 left open: a keyed route whose body schema leaves a part untyped (`{}`, what
// `Type.Unknown()` and `Type.Any()` become) reads that part by hand, so the schema's coercion does not reach it and
// the Idempotency-Key's hash must be taken of the body as the route reads it (`bodyAsRead`, src/platform/commands/
// runner.ts): else a retry that writes `"30000"` for `30000` answers 422 `idempotency_mismatch`. This file walks every
// route the modules register and fails on a keyed one with an untyped body part whose handler does not give
// `bodyAsRead`. A handler that hands the request to another function is not seen through and fails too: write the
// `runCommand` call with its `bodyAsRead` in the handler, as the mall, event and membership routes do.
import type { RouteOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppModule } from '../../src/platform/module.ts';
import { commandConfig, runCommand } from '../../src/platform/commands/runner.ts';
import { appModules } from '../../src/modules/index.ts';
import { withErrors } from '../../src/platform/http/schemas.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { modulesRecordingRoutes } from '../support/route-recorder.ts';

type Schema = Readonly<Record<string, unknown>>;

/** Where a schema says nothing of a value's type: the value reaches the handler exactly as the client sent it. */
function isUntyped(s: Schema): boolean {
  return ['type', 'anyOf', 'oneOf', 'allOf', 'const', 'enum', '$ref', 'not'].every(
    (k) => !(k in s),
  );
}

/** The schema's parts that describe values inside it (properties, items, union members, ...). */
function partsOf(s: Schema): Schema[] {
  const inner = (v: unknown): Schema[] =>
    Array.isArray(v) ? (v as Schema[]) : typeof v === 'object' && v !== null ? [v as Schema] : [];
  const values = (v: unknown): Schema[] =>
    typeof v === 'object' && v !== null ? (Object.values(v) as Schema[]) : [];
  return [
    ...values(s.properties),
    ...values(s.patternProperties),
    ...inner(s.additionalProperties),
    ...inner(s.items),
    ...inner(s.prefixItems),
    ...inner(s.anyOf),
    ...inner(s.oneOf),
    ...inner(s.allOf),
  ];
}

/** Whether any value the body schema admits holds a part no schema types (read by hand by the module). */
function hasUntypedPart(s: Schema): boolean {
  return isUntyped(s) || partsOf(s).some(hasUntypedPart);
}

/** `METHOD url` of each keyed route (run by `runCommand`) with a body part no schema types. */
function handRead(routes: readonly RouteOptions[]): string[] {
  return routes
    .filter((r) => r.config?.command === true && r.schema?.body !== undefined)
    .filter((r) => hasUntypedPart(r.schema!.body as Schema))
    .map((r) => `${String(r.method)} ${r.url}`);
}

/** Of those, the ones whose handler does not give `bodyAsRead`: their key's hash is taken of the body as sent. */
function hashedAsSent(routes: readonly RouteOptions[]): string[] {
  const givesBodyAsRead = new Set(
    routes
      .filter((r) => /\bbodyAsRead\s*[:,}]/.test(r.handler.toString()))
      .map((r) => `${String(r.method)} ${r.url}`),
  );
  return handRead(routes).filter((k) => !givesBodyAsRead.has(k));
}

/**
 * Two throwaway keyed routes whose body's `lines` are read by hand (summed as integers): one hashes the body as
 * read, the other as sent. Only the second is the mistake the guard is for.
 */
const probeModule: AppModule = {
  name: 'hash-guard-probe',
  dueWork: [],
  routes: async (app, ctx) => {
    const r = app.withTypeProvider<TypeBoxTypeProvider>();
    const options = {
      config: { ...commandConfig, scope: 'full' as const },
      schema: {
        body: Type.Object({ lines: Type.Array(Type.Unknown(), { minItems: 1, maxItems: 5 }) }),
        response: withErrors({ 200: Type.Object({ total: Type.Integer() }) }),
      },
    };
    const sum = (lines: readonly unknown[]) => lines.reduce<number>((a, x) => a + Number(x), 0);
    r.post('/api/probe-hashed-as-read', options, async (request, reply) =>
      runCommand(ctx, request, reply, async () => ({ total: sum(request.body.lines) }), {
        bodyAsRead: () => ({ lines: request.body.lines.map(Number) }),
      }),
    );
    r.post('/api/probe-hashed-as-sent', options, async (request, reply) =>
      runCommand(ctx, request, reply, async () => ({ total: sum(request.body.lines) })),
    );
  },
};

const isProbe = (r: RouteOptions) => r.url.startsWith('/api/probe-');

let t: TestApp;
let account: TestAccount;
/** Every route the app's modules and the probe module register, as each registers it. */
const routes: RouteOptions[] = [];

beforeAll(async () => {
  t = await startTestApp({
    modules: modulesRecordingRoutes((r) => routes.push(r), [...appModules, probeModule]),
  });
  account = await t.createAccount('Tienda Guardia');
});
afterAll(async () => {
  await t?.close();
});

describe('every keyed route hashes a hand-read body as read (decision 940)', () => {
  it("no route of the app's modules hashes a hand-read part as sent", () => {
    const app = routes.filter((r) => !isProbe(r));
    expect(app.length).toBeGreaterThan(50);
    // The walk sees the three routes decision 940 mended, so it is not blind to what it looks for.
    expect(handRead(app)).toEqual(
      expect.arrayContaining(['POST /api/mall', 'POST /api/event', 'POST /api/maaffiliation']),
    );
    expect(hashedAsSent(app)).toEqual([]);
  });

  it('catches a new route that reads its body by hand without bodyAsRead, and only that one', () => {
    expect(hashedAsSent(routes)).toEqual(['POST /api/probe-hashed-as-sent']);
  });

  it('the route it catches answers a retry written another way 422; the one it passes replays', async () => {
    const keyed = (url: string, lines: unknown[], key: string) =>
      t.call(account, {
        method: 'POST',
        url,
        body: { lines },
        headers: { 'idempotency-key': key },
      });
    const asRead = '/api/probe-hashed-as-read';
    expect((await keyed(asRead, [30000, 5], 'guard-1')).json()).toEqual({ total: 30005 });
    const replay = await keyed(asRead, ['30000', '5'], 'guard-1');
    expect(replay.statusCode, replay.body).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');

    const asSent = '/api/probe-hashed-as-sent';
    expect((await keyed(asSent, [30000, 5], 'guard-2')).json()).toEqual({ total: 30005 });
    const refused = await keyed(asSent, ['30000', '5'], 'guard-2');
    expect(refused.statusCode, refused.body).toBe(422);
    expect(refused.json().message_error).toBe(
      'this Idempotency-Key was already used with other parameters',
    );
  });
});
