// Who made a change, as the audit trail names them (decision 531). One small function per way in, so the
// multiple-keys work (issue 37) points `apiActor` at a key id without touching any caller.
import type { FastifyRequest } from 'fastify';
import { publicTokenHash } from '../auth/tokens.ts';
import type { ActorKind } from './types.ts';

export interface Actor {
  readonly kind: ActorKind;
  /** A non-secret name: `key:` and the first 12 hex digits of the public token's SHA-256, `session:`..., `operator`. */
  readonly name: string;
}

const bearer = /^Bearer\s+(\S+)\s*$/i;
const hashPrefixChars = 12;

/** The API key of an authenticated request, as the prefix of its public token's hash (the stored public_token_hash). */
export function apiActor(request: FastifyRequest): Actor {
  const token = bearer.exec(request.headers.authorization ?? '')?.[1];
  return {
    kind: 'api_key',
    name:
      token === undefined
        ? 'key:unknown'
        : `key:${publicTokenHash(token).slice(0, hashPrefixChars)}`,
  };
}

/** A dashboard user: today one per account, named by the prefix of its session's stored hash. */
export function dashboardActor(sessionIdHash: string): Actor {
  return { kind: 'dashboard', name: `session:${sessionIdHash.slice(0, hashPrefixChars)}` };
}

export const operatorActor: Actor = { kind: 'operator', name: 'operator' };
