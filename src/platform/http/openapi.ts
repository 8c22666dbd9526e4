// OpenAPI 3.1 generated from the route schemas; /api/openapi.json for tools, /docs for people.
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';

export async function registerOpenApi(app: FastifyInstance, publicBaseUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Cobro payment API',
        version: '2.1.01',
        description: 'Payku-compatible payment API. Routes tagged "Extensions" go beyond the seed document.',
      },
      servers: [{ url: publicBaseUrl }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'Public token' },
          sign: { type: 'apiKey', in: 'header', name: 'Sign', description: 'HMAC-SHA256 signature, see docs/authentication.md' },
        },
      },
    },
    transform: ({ schema, url, route }) => {
      const auth = route.config?.auth ?? (url.startsWith('/api') ? 'token' : 'none');
      const security = auth === 'none' ? [] : auth === 'sign' ? [{ bearer: [], sign: [] }] : [{ bearer: [] }];
      return { schema: { ...schema, security } as typeof schema, url };
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' } });
  app.get('/api/openapi.json', { config: { auth: 'none' }, schema: { hide: true } }, async () => app.swagger());
}
