// How the root app routes URLs; the docs app (./openapi-docs.ts) registers the same routes again and must accept
// them alike.
import { limits } from '../../limits/index.ts';

export const routerOptions = {
  ignoreTrailingSlash: true,
  maxParamLength: limits.pathParamLengthMax,
} as const;
