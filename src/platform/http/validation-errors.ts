// Turns Ajv errors into the seed's `field:problem` pairs (supplement §3).
import { validationError, type ApiError } from '../errors/errors.ts';

interface AjvLikeError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
}

function fieldName(e: AjvLikeError): string {
  const base = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
  if (e.keyword === 'required' && typeof e.params.missingProperty === 'string') {
    return base === '' ? e.params.missingProperty : `${base}.${e.params.missingProperty}`;
  }
  return base === '' ? 'body' : base;
}

function problem(e: AjvLikeError): string {
  switch (e.keyword) {
    case 'required':
      return 'is empty';
    case 'minLength':
      return e.params.limit === 1 ? 'is empty' : 'too short';
    case 'maxLength':
      return 'too long';
    case 'maximum':
    case 'exclusiveMaximum':
      return 'too large';
    case 'minimum':
    case 'exclusiveMinimum':
      return 'too small';
    default:
      return 'invalid';
  }
}

export function fromAjvErrors(errors: readonly AjvLikeError[]): ApiError {
  const fields: Record<string, string> = {};
  for (const e of errors) {
    const name = fieldName(e);
    // The first problem per field is the most specific; later ones (anyOf branches) add noise.
    if (!(name in fields)) fields[name] = problem(e);
  }
  if (Object.keys(fields).length === 0) fields.body = 'invalid';
  return validationError(fields);
}
