// Who made a change, as the audit trail names them (decision 531): the API key a request used (issue 37's key
// ids: `primary` for the account's own pair, `key...` for a key of `cobro keys create`), the dashboard user, or
// the operator. One small function per way in.
import type { FastifyRequest } from 'fastify';
import { keyIdOf } from '../auth/auth-plugin.ts';
import { publicTokenHash } from '../auth/tokens.ts';
import type { ActorKind } from './types.ts';

export interface Actor {
  readonly kind: ActorKind;
  /** A non-secret name: `key:primary`, `key:key...`, `user:...`, `session:...` or `operator`. */
  readonly name: string;
}

const bearer = /^Bearer\s+(\S+)\s*$/i;
const hashPrefixChars = 12;

/**
 * The API key of an authenticated request: its key id; without one (a request the auth hook did not name), the
 * prefix of its public token's hash.
 */
export function apiActor(request: FastifyRequest): Actor {
  const keyId = keyIdOf(request);
  if (keyId !== null) return { kind: 'api_key', name: `key:${keyId}` };
  const token = bearer.exec(request.headers.authorization ?? '')?.[1];
  return {
    kind: 'api_key',
    name:
      token === undefined
        ? 'key:unknown'
        : `key:${publicTokenHash(token).slice(0, hashPrefixChars)}`,
  };
}

/**
 * A dashboard user by id (issue 37); one signed in with the account's tokens has none, and is named by the prefix
 * of its session's stored hash.
 */
export function dashboardActor(userId: string | null, sessionIdHash: string): Actor {
  if (userId !== null) return { kind: 'dashboard', name: `user:${userId}` };
  return { kind: 'dashboard', name: `session:${sessionIdHash.slice(0, hashPrefixChars)}` };
}

export const operatorActor: Actor = { kind: 'operator', name: 'operator' };
