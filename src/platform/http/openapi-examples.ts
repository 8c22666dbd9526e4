// Examples for /api/openapi.json: every operation's request body and responses get one, built from its own schema
// with the seed's sample values per field name (seed "Resources", "Endpoints": order 133222, sandbox amount 1000,
// bank 0001, ...), so a route added later is documented with realistic values without writing them twice. A
// schema's own `examples` or `default` wins over these; test/platform/http/openapi-examples.test.ts checks that
// each example is valid against its schema.

type Schema = Record<string, unknown>;

/** Sample values by field name, as the seed and the reference show them. */
const seedValues: Readonly<Record<string, unknown>> = {
  status: 'success',
  email: 'comprador@ejemplo.cl',
  order: '133222',
  order_ext: 'OC-133222',
  subject: 'Pedido 133222',
  amount: 1000,
  currency: 'CLP',
  payment: 1,
  urlreturn: 'https://tienda.ejemplo.cl/retorno',
  urlnotify: 'https://tienda.ejemplo.cl/notificacion',
  url_notify: 'https://tienda.ejemplo.cl/notificacion',
  url_event: 'https://tienda.ejemplo.cl/evento',
  url_logo: 'https://tienda.ejemplo.cl/logo.png',
  url_notify_suscription: 'https://tienda.ejemplo.cl/notificacion',
  url_notify_payment: 'https://tienda.ejemplo.cl/notificacion',
  url_success_payment: 'https://tienda.ejemplo.cl/pago-exitoso',
  url_failed_payment: 'https://tienda.ejemplo.cl/pago-fallido',
  url: 'https://cobro.ejemplo.cl/pay/0123456789abcdef',
  phone: '56912345678',
  name: 'Tienda Uno',
  accountbank_name: 'Juan Pérez',
  accountbank_rut: '111111111',
  accountbank_sbif: '0001',
  accountbank_type: '1',
  accountbank_num: '123456789',
  sbif: '0001',
  type: '1',
  num: '123456789',
  rut: '111111111',
  percentage: '10',
  event: 'EV-2027-01',
  date_event: '2027-03-15 20:00:00',
  date_closing_sales: '2027-03-14 23:59:59',
  date_payment: '2027-03-20 10:00:00',
  date_init: '2026-11-01',
  date_end: '2026-11-24',
  service_sale: 500,
  page: 1,
  per_page: 10,
  message_error: 'amount:is empty,email:invalid',
  created_at: '2026-11-25 10:30:00',
  update_at: '2026-11-25 10:30:00',
  updated_at: '2026-11-25 10:30:00',
};

/**
 * Fields whose value names another resource (a membership token, an event's code) or a moment relative to now: no
 * fixed sample of them is accepted (decision 700), so an optional one gets no example and Swagger UI's "Try it out"
 * sends a request the server takes. A required one (POST /api/event's own `event`) keeps its seed value.
 */
const unsampledWhenOptional: ReadonlySet<string> = new Set(['expired', 'marketplace', 'event']);

function typesOf(schema: Schema): string[] {
  const t = schema.type;
  return Array.isArray(t) ? (t as string[]) : typeof t === 'string' ? [t] : [];
}

function fits(value: unknown, schema: Schema): boolean {
  const types = typesOf(schema);
  if (types.length === 0) return true;
  const kind =
    typeof value === 'number'
      ? Number.isInteger(value)
        ? ['integer', 'number']
        : ['number']
      : [typeof value];
  if (!types.some((t) => kind.includes(t))) return false;
  if (typeof value === 'string') {
    if (typeof schema.maxLength === 'number' && value.length > schema.maxLength) return false;
    if (typeof schema.minLength === 'number' && value.length < schema.minLength) return false;
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value))
      return false;
  }
  return true;
}

function stringExample(schema: Schema): string {
  const min = typeof schema.minLength === 'number' ? schema.minLength : 1;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : 40;
  switch (schema.format) {
    case 'email':
      return 'comprador@ejemplo.cl';
    case 'uri':
    case 'url':
      return 'https://tienda.ejemplo.cl/';
    case 'date':
      return '2026-11-25';
    case 'date-time':
      return '2026-11-25 10:30:00';
    default:
      return 'ejemplo'.padEnd(min, 'x').slice(0, Math.max(min, Math.min(max, 7)));
  }
}

/** One example value for `schema` (a field called `name`), or undefined when none can be made. */
export function exampleOf(schema: unknown, name = '', depth = 0): unknown {
  if (schema === null || typeof schema !== 'object' || depth > 24) return undefined;
  const s = schema as Schema;
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if (s.example !== undefined) return s.example;
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0)
    return s.enum.includes(seedValues[name]) ? seedValues[name] : s.enum[0];
  if (s.default !== undefined) return s.default;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = s[key];
    if (!Array.isArray(options)) continue;
    const usable = (options as Schema[]).filter((o) => !typesOf(o).includes('null'));
    const seeded = usable.find((o) => seedValues[name] !== undefined && fits(seedValues[name], o));
    return exampleOf(seeded ?? usable[0] ?? options[0], name, depth + 1);
  }
  if (Array.isArray(s.allOf))
    return Object.assign(
      {},
      ...(s.allOf as Schema[]).map((o) => exampleOf(o, name, depth + 1) as object),
    );
  const seeded = seedValues[name];
  if (seeded !== undefined && fits(seeded, s)) return seeded;
  const types = typesOf(s);
  if (types.includes('object') || s.properties !== undefined) {
    const out: Record<string, unknown> = {};
    const required = Array.isArray(s.required) ? (s.required as string[]) : [];
    for (const [key, prop] of Object.entries((s.properties ?? {}) as Record<string, unknown>)) {
      if (unsampledWhenOptional.has(key) && !required.includes(key)) continue;
      const value = exampleOf(prop, key, depth + 1);
      if (value !== undefined) out[key] = value;
    }
    return out;
  }
  if (types.includes('array')) {
    const item = exampleOf(s.items, name, depth + 1);
    return item === undefined ? [] : [item];
  }
  if (types.includes('string')) return stringExample(s);
  if (types.includes('integer') || types.includes('number'))
    return typeof s.minimum === 'number' ? s.minimum : 1;
  if (types.includes('boolean')) return true;
  if (types.includes('null')) return null;
  return undefined;
}

/** One error body, its message as the conventions write it (src/platform/http/openapi-errors.ts). */
function failed(type: string, message_error: string, summary = message_error) {
  return { summary, value: { status: 'failed', type, message_error } };
}

/** The error bodies an operation can answer, as Cobro writes them (docs/errors.md). */
export const errorExamples: Readonly<Record<string, { summary: string; value: object }[]>> = {
  400: [
    {
      summary: 'A field is missing or malformed',
      value: {
        status: 'failed',
        type: 'Unprocessable Entity',
        message_error: 'amount:is empty,email:invalid',
        errors: { amount: 'is empty', email: 'invalid' },
      },
    },
  ],
  401: [
    {
      summary: 'No public token',
      value: { status: 'failed', type: 'Unauthorized', message_error: 'waiting token public' },
    },
    {
      summary: 'Unknown public token',
      value: { status: 'failed', type: 'Unauthorized', message_error: 'invalid token' },
    },
    {
      summary: 'Sign missing (signed routes)',
      value: { status: 'failed', type: 'Unauthorized', message_error: 'waiting sign' },
    },
    {
      summary: 'Sign does not match (signed routes)',
      value: { status: 'failed', type: 'Unauthorized', message_error: 'invalid sign' },
    },
  ],
  404: [
    {
      summary: "Not found or not the caller's",
      value: {
        status: 'failed',
        type: 'Not Found',
        message_error: 'not found',
        id: 'is not valid',
      },
    },
  ],
  406: [failed('Not Acceptable', 'this API answers application/json only')],
  409: [
    failed(
      'Conflict',
      'a request with this Idempotency-Key is still being processed; retry later',
      'The first request with this Idempotency-Key still runs',
    ),
  ],
  415: [failed('Unsupported Media Type', 'body must be application/json')],
  422: [
    failed(
      'Unprocessable Entity',
      'this Idempotency-Key was already used with other parameters',
      'The Idempotency-Key came back with another request',
    ),
  ],
  429: [
    failed('Too Many Requests', 'too many requests: more than 6000 a minute; retry after 42 s'),
  ],
  500: [
    {
      summary: 'A fault of Cobro; the request id finds it in the log',
      value: {
        status: 'failed',
        type: 'Internal Server Error',
        message_error: 'internal error',
        request_id: 'req_0123456789abcdef01234567',
      },
    },
  ],
  503: [failed('Service Unavailable', 'the database does not answer; retry later')],
};
