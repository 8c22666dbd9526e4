// Records real answers of a test app and validates each against GET /api/openapi.json's schema for its operation
// and status (decision 700; from review-contract).
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { LightMyRequestResponse } from 'fastify';
import type { TestAccount, TestApp } from '../support/app.ts';

type Json = Record<string, any>;
export interface Seen {
  readonly op: string; // "GET /api/wallet/{id}"
  readonly status: number;
  readonly body: unknown;
  readonly raw: string;
}

export class Recorder {
  readonly seen: Seen[] = [];
  readonly t: TestApp;
  readonly doc: Json;
  constructor(t: TestApp, doc: Json) {
    this.t = t;
    this.doc = doc;
  }

  async hit(
    account: TestAccount | null,
    op: string,
    url: string,
    options: { body?: unknown; sign?: boolean; headers?: Record<string, string> } = {},
  ): Promise<LightMyRequestResponse> {
    const [method] = op.split(' ') as ['GET'];
    const res = await this.t.call(account, {
      method,
      url,
      ...(options.body !== undefined ? { body: options.body } : {}),
      ...(options.sign !== undefined ? { sign: options.sign } : {}),
      ...(options.headers !== undefined ? { headers: options.headers } : {}),
    });
    let body: unknown;
    try {
      body = JSON.parse(res.body);
    } catch {
      body = res.body;
    }
    this.seen.push({ op, status: res.statusCode, body, raw: res.body });
    return res;
  }

  /** Answers the document does not describe: undocumented status, or a body its schema refuses. */
  problems(): { undocumented: string[]; invalid: string[] } {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats.default(ajv);
    const undocumented = new Set<string>();
    const invalid: string[] = [];
    for (const s of this.seen) {
      const [method, path] = s.op.split(' ') as [string, string];
      const op = this.doc.paths?.[path]?.[method.toLowerCase()];
      if (op === undefined) {
        undocumented.add(`${s.op}: operation not in the document`);
        continue;
      }
      const response = op.responses?.[String(s.status)] ?? op.responses?.default;
      if (response === undefined) {
        undocumented.add(`${s.op} -> ${s.status} ${s.raw.slice(0, 160)}`);
        continue;
      }
      const schema = response.content?.['application/json']?.schema;
      if (schema === undefined) continue;
      const validate = ajv.compile(schema);
      if (!validate(s.body))
        invalid.push(
          `${s.op} -> ${s.status}: ${ajv.errorsText(validate.errors)} :: ${s.raw.slice(0, 300)}`,
        );
    }
    return { undocumented: [...undocumented], invalid };
  }
}
