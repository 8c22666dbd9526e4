// A value an app learns once and keeps while it runs (the reference catalogue, the checkout-link key). Each app's
// own, made by the composition root (src/runtime.ts) on its context and shared by every copy of it (a command's
// context is the app's with its transaction as `db`): never a module-scope map keyed by the app (decision 475).

export class Memo<T> {
  #loading: Promise<T> | null = null;
  #value: { readonly value: T } | null = null;

  /**
   * The kept value, loaded by `load` on first use (in the caller's database: whichever request asks first). A failed
   * load is not kept: the next call loads again.
   */
  get(load: () => Promise<T>): Promise<T> {
    if (this.#value !== null) return Promise.resolve(this.#value.value);
    if (this.#loading === null) {
      const loading = load();
      this.#loading = loading;
      loading.then(
        (value) => {
          if (this.#loading === loading) this.#value = { value };
        },
        () => {
          if (this.#loading === loading) this.#loading = null;
        },
      );
    }
    return this.#loading;
  }

  /** The value once it is kept, without a promise (a hot path, decision 320); undefined before. */
  peek(): T | undefined {
    return this.#value?.value;
  }

  /** Keeps `value` from now on (one a caller read as committed). */
  keep(value: T): void {
    this.#value = { value };
    this.#loading = null;
  }
}
