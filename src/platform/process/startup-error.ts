// A reason the process cannot start that the operator can act on (port taken, DATA_DIR held, database out of
// reach). The CLI prints its message as one line and exits non-zero; anything else that escapes is a bug.
export class StartupError extends Error {
  override readonly name = 'StartupError';
}

/** The text of an error from Node or pg, which may be an AggregateError with an empty message (both localhost addresses refused). */
export function errorText(error: unknown): string {
  if (error instanceof AggregateError && error.message === '') {
    const inner = error.errors.find((e): e is Error => e instanceof Error);
    if (inner !== undefined) return errorText(inner);
  }
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return error.message !== '' ? error.message : (code ?? error.name);
  }
  return String(error);
}
