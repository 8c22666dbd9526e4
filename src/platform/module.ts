// The shape of a functional group (src/modules/<group>/module.ts): its HTTP routes, registered by app.ts as an
// encapsulated Fastify plugin, and its time-driven handlers, collected by runtime.ts into the context.
import type { FastifyInstance } from 'fastify';
import type { AppContext, DueWorkHandler } from './context.ts';

export interface AppModule {
  /** Also the Fastify plugin name, so a route error names the module it came from. */
  readonly name: string;
  /** Registers the group's routes on its own encapsulated instance; absent for a group without HTTP routes. */
  readonly routes?: (app: FastifyInstance, ctx: AppContext) => Promise<void>;
  readonly dueWork: readonly DueWorkHandler[];
}
