// A string field's declared exception to strict coercion (decision 1180). Decision 072 refuses a JSON number in a
// string field unless its text survives (`1.50` would be stored as "1.5", `1e3` as "1000"). A field whose own
// reader reads a number from the text the client wrote (the merchant's membership `percentage`, read by
// `percentAt` as a pair's percentage is) declares this keyword in its schema: the input guards then hand it the
// number's text as written, under the field's length limit, and the reader judges it.
/** The schema keyword (an OpenAPI-style extension, shown in the API docs as it is). */
export const numberAsWritten = 'x-cobro-number-as-written';

/** Makes Ajv know the keyword (strict mode refuses unknown ones); it validates nothing itself. */
export function numberAsWrittenKeyword<A extends KeywordHolder>(ajv: A): A {
  ajv.addKeyword({ keyword: numberAsWritten, schemaType: 'boolean' });
  return ajv;
}

/** The part of an Ajv instance the keyword needs (Fastify hands each plugin its validator's Ajv). */
interface KeywordHolder {
  addKeyword(definition: { readonly keyword: string; readonly schemaType: string }): unknown;
}
