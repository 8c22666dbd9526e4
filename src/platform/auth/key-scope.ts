// What an API key may do (issue 37, decision 540). Scopes are nested: a `full` key may do all a `payments` key
// may, which may do all a `read` key may. Each API route names the least scope that may call it (its `scope`
// config, beside its `auth` mode), and a test walks the router's table so no route goes without one.
/** Narrowest first. */
export const keyScopes = ['read', 'payments', 'full'] as const;
export type KeyScope = (typeof keyScopes)[number];

export function isKeyScope(value: string): value is KeyScope {
  return (keyScopes as readonly string[]).includes(value);
}

/** Whether a key of scope `held` may call a route that needs `needed`. */
export function scopeAllows(held: KeyScope, needed: KeyScope): boolean {
  return keyScopes.indexOf(held) >= keyScopes.indexOf(needed);
}
