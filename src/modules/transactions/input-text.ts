// Text PostgreSQL cannot store: a NUL character (refused in TEXT and JSONB) or a lone UTF-16 surrogate (refused in
// JSONB, silently replaced in TEXT). JSON allows both, so a client's body can carry them; they must be a
// validation error, never a database error (a 500) nor a silently altered order.
import { validationError } from '../../platform/errors.ts';

/** Nesting the walk follows; additional_parameters is at most 4000 characters, so this is never the bound hit first. */
const depthMax = 64;

export function isStorableText(text: string): boolean {
  return text.isWellFormed() && !text.includes('\u0000');
}

function walk(value: unknown, field: string, depth: number, problems: Record<string, string>): void {
  if (typeof value === 'string') {
    if (!isStorableText(value)) problems[field] = 'invalid';
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (depth >= depthMax) {
    problems[field] = 'invalid';
    return;
  }
  for (const [key, inner] of Object.entries(value)) {
    // A bad key makes the whole object unstorable; it is reported under the object's own name.
    if (!isStorableText(key)) problems[field] = 'invalid';
    else walk(inner, field === '' ? key : `${field}.${key}`, depth + 1, problems);
  }
}

/** Throws the seed's validation error naming every field (top-level or under additional_parameters) that holds such text. */
export function refuseUnstorableText(body: unknown): void {
  const problems: Record<string, string> = {};
  walk(body, '', 0, problems);
  if (Object.keys(problems).length > 0) throw validationError(problems);
}
