// What every subscriptions route shares: Bearer + Sign, the command runner's config, the OpenAPI tag.
import { commandConfig } from '../../platform/commands/runner.ts';
export const signed = { auth: 'sign' as const };
export const signedCommand = { ...commandConfig, auth: 'sign' as const };
export const clients = { tags: ['Subscriptions'] };
