// Route schemas compile on first use instead of at start-up. Fastify compiles every route's validators (ajv) and
// response serializers (fast-json-stringify) while it starts, about 13% of a start's CPU for ~150 routes of which a
// process may serve a handful; compiling each on its first request moves that cost off the cold start (issue 13).
// The compilers are Fastify's own defaults with the same options, so behaviour is unchanged; `compilePending()`
// compiles whatever is still waiting, which a test runs so a broken schema fails CI rather than a first request.
import AjvCompiler from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyInstance } from 'fastify';

type Compile<F> = (routeSchema: { readonly schema: unknown }) => F;
type Validate = ((data: unknown) => unknown) & { errors?: unknown };
type Serialize = (data: unknown) => string;

export interface LazySchemas {
  readonly compilersFactory: {
    readonly buildValidator: (externalSchemas: unknown, options: unknown) => Compile<Validate>;
    readonly buildSerializer: (externalSchemas: unknown, options: unknown) => Compile<Serialize>;
  };
  /** Compiles every schema not compiled yet; returns how many it compiled. */
  compilePending(): number;
}

const decoratorName = 'lazySchemas';

/** Decorates the app with the compilers it was built with, for `compilePendingSchemas` (decision 475). */
export function attachLazySchemas(app: FastifyInstance, schemas: LazySchemas): void {
  app.decorate(decoratorName, schemas);
}

/** Compiles every route schema of the app not compiled yet (tests: a broken schema fails there). */
export function compilePendingSchemas(app: FastifyInstance): number {
  if (!app.hasDecorator(decoratorName)) throw new Error('this app was not built with lazy schemas');
  return app.getDecorator<LazySchemas>(decoratorName).compilePending();
}

export function lazySchemas(): LazySchemas {
  const pending = new Set<() => void>();
  const buildValidator = AjvCompiler() as unknown as (
    externalSchemas: unknown,
    options: unknown,
  ) => Compile<Validate>;
  const buildSerializer = SerializerSelector() as unknown as (
    externalSchemas: unknown,
    options: unknown,
  ) => Compile<Serialize>;

  /** Compiles the route's schema on the first call of the function it returns, and once only. */
  function onFirstUse<F>(compile: Compile<F>, routeSchema: { readonly schema: unknown }): () => F {
    let compiled: F | null = null;
    const ensure = (): F => {
      if (compiled === null) {
        compiled = compile(routeSchema);
        pending.delete(ensure);
      }
      return compiled;
    };
    pending.add(ensure);
    return ensure;
  }

  function lazyValidator(
    compile: Compile<Validate>,
    routeSchema: { readonly schema: unknown },
  ): Validate {
    const ensure = onFirstUse(compile, routeSchema);
    // Fastify reads `errors` off the function it was given after a failed call, as ajv leaves them there.
    const validate: Validate = (data) => {
      const inner = ensure();
      const result = inner(data);
      validate.errors = inner.errors;
      return result;
    };
    return validate;
  }

  function lazySerializer(
    compile: Compile<Serialize>,
    routeSchema: { readonly schema: unknown },
  ): Serialize {
    const ensure = onFirstUse(compile, routeSchema);
    return (data) => ensure()(data);
  }

  return {
    compilersFactory: {
      buildValidator: (externalSchemas, options) => {
        const compile = buildValidator(externalSchemas, options);
        return (routeSchema) => lazyValidator(compile, routeSchema);
      },
      buildSerializer: (externalSchemas, options) => {
        const compile = buildSerializer(externalSchemas, options);
        return (routeSchema) => lazySerializer(compile, routeSchema);
      },
    },
    compilePending() {
      const waiting = [...pending];
      for (const ensure of waiting) ensure();
      return waiting.length;
    },
  };
}
