// What went wrong with a payer's form, and the field it concerns: forms.ts finds them, form-html.ts shows each
// tied to its field (decision 1135).

/** The payer's fields a problem can point at (form-html.ts ties the message to its field). */
export type FieldName =
  | 'card_number'
  | 'expiry'
  | 'cvv'
  | 'installments'
  | 'rut'
  | 'password'
  | 'bank';

/** What went wrong, in Spanish; `field` null for the whole form (a decline, the tries left). */
export interface FormProblem {
  readonly field: FieldName | null;
  readonly text: string;
}

/** Problems of the whole form, from the processor's or the service's words. */
export function formProblems(...texts: readonly string[]): readonly FormProblem[] {
  return texts.map((text) => ({ field: null, text }));
}
