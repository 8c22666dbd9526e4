// The app's modules, each registering its routes with an onRoute hook first, so a test sees exactly the routes
// every module adds (route-fuzz, module-plugins), including routes added later with no change to the test.
import type { RouteOptions } from 'fastify';
import type { AppModule } from '../../src/platform/module.ts';
import { appModules } from '../../src/modules/index.ts';

export function modulesRecordingRoutes(
  onRoute: (route: RouteOptions) => void,
  modules: readonly AppModule[] = appModules,
): AppModule[] {
  return modules.map((m) => {
    const register = m.routes;
    return register === undefined
      ? m
      : {
          ...m,
          routes: async (
            app: Parameters<typeof register>[0],
            ctx: Parameters<typeof register>[1],
          ) => {
            app.addHook('onRoute', onRoute);
            await register(app, ctx);
          },
        };
  });
}
