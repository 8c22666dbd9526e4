// What a process learns once per application and database (the checkout-link key, the reference data's
// currencies): cached per app. A command's context is a copy of the app's with its transaction as `db`, so the
// context object is not a stable key; `ctx.accounts` is made once per app (createContext) and shared by every
// copy, so it is. A failed load is not cached.
import type { AppContext } from './context.ts';

/** The object that stands for this app in a per-app cache. */
export function appKeyOf(ctx: AppContext): object {
  return ctx.accounts;
}

export function appMemo<T>(load: (ctx: AppContext) => Promise<T>): (ctx: AppContext) => Promise<T> {
  const cache = new WeakMap<object, Promise<T>>();
  return (ctx) => {
    const key = appKeyOf(ctx);
    let value = cache.get(key);
    if (value === undefined) {
      value = load(ctx);
      cache.set(key, value);
      value.catch(() => { if (cache.get(key) === value) cache.delete(key); });
    }
    return value;
  };
}

/** One object per app, made on first use (a group commit's batcher); `peek` never makes it. */
export function perApp<T>(make: (ctx: AppContext) => T): { of(ctx: AppContext): T; peek(ctx: AppContext): T | undefined } {
  const made = new WeakMap<object, T>();
  return {
    of(ctx) {
      const key = appKeyOf(ctx);
      let value = made.get(key);
      if (value === undefined) {
        value = make(ctx);
        made.set(key, value);
      }
      return value;
    },
    peek: (ctx) => made.get(appKeyOf(ctx)),
  };
}
