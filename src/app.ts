// Builds the Fastify application: conventions, auth, input guards, idempotency and OpenAPI on the root instance,
// then every module's routes as an encapsulated plugin (no fastify-plugin skip-override): a module inherits the
// root's hooks, parsers and error handler, and whatever it adds itself (a parser, a hook) stays inside it.
// Does not listen.
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import ajvFormats from 'ajv-formats';
import type { AppContext } from './platform/context.ts';
import { validationError } from './platform/errors/errors.ts';
import { limits } from './limits/index.ts';
import { genRequestId, registerConventions } from './platform/http/conventions.ts';
import { routerOptions } from './platform/http/router-options.ts';
import { registerAuth } from './platform/auth/auth-plugin.ts';
import { registerInputGuards } from './platform/http/input-guards.ts';
import { numberAsWrittenKeyword } from './platform/http/number-as-written.ts';
import { registerIdempotency } from './platform/idempotency/plugin.ts';
import { registerOpenApi } from './platform/http/openapi.ts';
import { registerMetrics } from './platform/http/metrics.ts';
import { appModules } from './modules/index.ts';
import type { AppModule } from './platform/module.ts';
import { httpServerOptions } from './platform/http/timeouts.ts';
import { requestChildLogger } from './platform/http/request-logger.ts';
import { registerRateLimit } from './platform/http/rate-limit.ts';
import { registerWriteGuard } from './platform/http/write-guard.ts';
import { attachLazySchemas, lazySchemas } from './platform/http/lazy-schemas.ts';
import { answerRefusedGatewayUrl } from './checkout/routes.ts';

export async function buildApp(
  ctx: AppContext,
  modules: readonly AppModule[] = appModules,
): Promise<FastifyInstance> {
  const schemas = lazySchemas();
  const app: FastifyInstance = Fastify({
    schemaController: { compilersFactory: schemas.compilersFactory as never },
    loggerInstance: ctx.logger as FastifyBaseLogger,
    bodyLimit: limits.bodyBytesMax,
    ...httpServerOptions(ctx.config.httpTimeouts),
    genReqId: genRequestId,
    // Behind a reverse proxy (docs/going-live.md): the payer's address from X-Forwarded-For, only from those named.
    trustProxy: ctx.config.trustProxy === null ? false : [...ctx.config.trustProxy],
    childLoggerFactory: requestChildLogger,
    // A URL that is not valid percent-encoding never reaches a route: answer it in the seed's envelope too.
    frameworkErrors: (error, request, reply) => {
      // A browser at a /gateway/ address gets the checkout's page of a bad link instead (decision 860).
      if (answerRefusedGatewayUrl(ctx, request, reply as FastifyReply)) {
        request.log.info({ code: error.code }, 'framework refused the request');
        return;
      }
      // A path id longer than the router holds is the same mistake as one over the route's own limit: `id: too long`.
      const envelope = validationError(
        error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? { id: 'too long' } : { url: 'invalid' },
      );
      void (reply as FastifyReply)
        .code(400)
        .header('x-request-id', request.id)
        .type('application/json; charset=utf-8')
        .send(JSON.stringify(envelope.envelope()));
      request.log.info({ code: error.code }, 'framework refused the request');
    },
    routerOptions,
    ajv: {
      customOptions: {
        // Tolerant input (supplement §1.2): "25000" fills an integer, 25000 fills a string; unknown top-level
        // fields are dropped where a schema closes its object.
        coerceTypes: true,
        removeAdditional: true,
        allErrors: true,
        useDefaults: true,
      },
      // The input guards' declared exception for a string field's number text (decision 1180).
      plugins: [ajvFormats as never, numberAsWrittenKeyword as never],
    },
  });
  attachLazySchemas(app, schemas);
  registerConventions(app, { httpsBase: ctx.config.publicBaseUrl.startsWith('https:') });
  registerWriteGuard(app, ctx);
  registerMetrics(app, ctx);
  await registerRateLimit(app, ctx.config.rateLimitPerMinute);
  registerAuth(app, ctx);
  registerInputGuards(app);
  registerIdempotency(app);
  await registerOpenApi(app, ctx.config.publicBaseUrl, ctx.config.mode);
  for (const module of modules) {
    const routes = module.routes;
    if (routes === undefined) continue;
    // The plugin's name shows in Fastify's errors and in `app.printPlugins()`.
    const plugin = Object.defineProperty(
      async (child: FastifyInstance) => {
        await routes(child, ctx);
      },
      'name',
      { value: module.name },
    );
    await app.register(plugin);
  }
  return app;
}
