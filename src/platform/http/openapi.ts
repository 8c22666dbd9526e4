// /api/openapi.json for tools and /docs for people, built on their first request (decision 310). @fastify/swagger,
// Swagger UI and what they bring (yaml, @fastify/static: 166 modules, 2.2-2.6 MB of V8's heap) are only imported
// then: a serving process that nobody reads the docs of never holds them. Until then the root only records its
// routes, as @fastify/swagger's own `onRoute` hook would, and answers the docs' URLs by forwarding each request to
// the docs app (./openapi-docs.ts), so the root's hooks, not-found and error handlers answer them as before.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Mode } from '../process/config.ts';
import type { RecordedRoutes } from './openapi-docs.ts';

/** The URLs Swagger UI serves under /docs (its page, its document as JSON and YAML, its static files and theme). */
export const docsUrls: readonly string[] = ['/docs', '/docs/json', '/docs/yaml', '/docs/static/*'];

/** Headers of the docs app's answer that belong to its own (injected) connection, not to the client's. */
const connectionHeaders: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'date',
  'content-length',
]);

/** The handler of the docs' URLs: each request answered by the docs app, as if its routes were the root's. */
function docsForwarder(docsApp: () => Promise<FastifyInstance>) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    // A HEAD request gets the GET's answer, whose body Fastify drops and whose length it keeps.
    const answer = await (await docsApp()).inject({
      method: 'GET',
      url: request.url,
      headers: request.headers,
    });
    // A file that is not there, or an error: the root's own handlers answer, as when Swagger UI's routes were its own.
    if (answer.statusCode === 404) {
      reply.callNotFound();
      return reply;
    }
    if (answer.statusCode >= 400)
      throw Object.assign(new Error(`docs answered ${answer.statusCode}`), {
        statusCode: answer.statusCode,
      });
    for (const [name, value] of Object.entries(answer.headers))
      if (value !== undefined && !connectionHeaders.has(name)) reply.header(name, value);
    // No body (a redirect, a 304): none sent, so Fastify adds no type or length of its own.
    return reply
      .code(answer.statusCode)
      .send(answer.rawPayload.length === 0 ? undefined : answer.rawPayload);
  };
}

export async function registerOpenApi(
  app: FastifyInstance,
  publicBaseUrl: string,
  mode: Mode = 'production',
): Promise<void> {
  let docs: Promise<FastifyInstance> | null = null;
  const docsApp = (): Promise<FastifyInstance> => {
    docs ??= import('./openapi-docs.ts')
      .then(({ buildDocsApp }) => buildDocsApp(recorded, publicBaseUrl, mode))
      .catch((error: unknown) => {
        docs = null;
        throw error;
      });
    return docs;
  };
  app.addHook('onClose', async () => {
    if (docs !== null) await (await docs.catch(() => null))?.close();
  });

  // Registered before the recorder below, so the docs app does not register its own URLs twice.
  app.get('/api/openapi.json', { config: { auth: 'none' }, schema: { hide: true } }, async () =>
    (await docsApp()).swagger(),
  );
  const forward = docsForwarder(docsApp);
  for (const url of docsUrls) app.get(url, { schema: { hide: true } }, forward);

  // What @fastify/swagger's own hooks would collect while the app is built, for the docs app to register again.
  const routes: RouteOptions[] = [];
  const instances: FastifyInstance[] = [];
  const sharedSchemas = new Map<string, unknown>();
  const recorded: RecordedRoutes = {
    routes,
    get sharedSchemas() {
      return [...sharedSchemas.values()];
    },
  };
  app.addHook('onRoute', (route) => {
    routes.push(route);
  });
  app.addHook('onRegister', (instance) => {
    instances.push(instance);
  });
  app.addHook('onReady', async () => {
    // As @fastify/swagger reads them: each plugin's, then the root's; a later one with the same $id wins.
    for (const instance of [...instances, app])
      for (const [id, schema] of Object.entries(instance.getSchemas()))
        sharedSchemas.set(id, schema);
    instances.length = 0;
  });
}
