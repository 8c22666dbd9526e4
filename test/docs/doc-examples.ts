// The shell examples of a guide, read as a reader would run them: its ```sh blocks in order in one terminal (one
// bash, so a `sign()` or `BODY=` of one block serves the next), each id or token the guide shows in an answer
// replaced in later blocks by the one the server really gave, and a block marked
// `<!-- example: not run: <reason> -->` on the line before it left out, with its reason. The answer a block shows is
// the one it gives at that step of the walk, unless marked `<!-- example: answer shown once <when> -->`: an answer
// of a later state (a payer has paid, a callback has failed), which the guide's text says in words as well.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

export interface DocBlock {
  readonly line: number;
  readonly script: string;
  /** The answer the guide shows: the block's `# {…}` comment lines and a ```json block right after it. */
  readonly shown: string;
  /** Why the block is not run, from its marker; null when it is run. */
  readonly notRun: string | null;
  /** When the answer shown is given, from its marker, if not at this step of the walk; null when it is. */
  readonly answerLater: string | null;
}

const notRunMarker = /<!-- example: not run: (.+?) -->\s*$/;
const answerLaterMarker = /<!-- example: answer shown once (.+?) -->\s*$/;

/**
 * The guide's ```sh blocks that call the API (a `curl` or a `sign`), with their markers and shown answers; with
 * `commands`, also those that run the operator CLI (`bin/cobro`).
 */
export function apiBlocks(markdown: string, options: { commands?: boolean } = {}): DocBlock[] {
  const runs = options.commands === true ? /\bcurl\b|\bsign\b|\bbin\/cobro\b/ : /\bcurl\b|\bsign\b/;
  const lines = markdown.split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```sh') continue;
    const end = lines.indexOf('```', i + 1);
    const body = lines.slice(i + 1, end);
    const json =
      lines[end + 1] === '```json'
        ? lines.slice(end + 2, lines.indexOf('```', end + 2)).join('\n')
        : '';
    const script = body.join('\n');
    if (runs.test(script)) {
      const shown = `${body.filter((l) => l.startsWith('#')).join('\n')}\n${json}`;
      blocks.push({
        line: i + 1,
        script,
        shown,
        notRun: notRunMarker.exec(lines[i - 1] ?? '')?.[1] ?? null,
        answerLater: answerLaterMarker.exec(lines[i - 1] ?? '')?.[1] ?? null,
      });
    }
    i = end;
  }
  return blocks;
}

/** The JSON documents curl printed one after another (`{…}{…}`), or the text that is not one. */
export function jsonDocuments(stdout: string): unknown[] {
  const docs: unknown[] = [];
  let depth = 0,
    start = -1,
    inString = false;
  for (let i = 0; i < stdout.length; i++) {
    const c = stdout[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      if (depth++ === 0) start = i;
    } else if (c === '}' || c === ']') {
      if (--depth === 0) docs.push(JSON.parse(stdout.slice(start, i + 1)));
    } else if (depth === 0 && c !== undefined && c.trim() !== '')
      docs.push(`not JSON: ${stdout.slice(i, i + 80)}`);
    if (depth === 0 && typeof docs.at(-1) === 'string') break;
  }
  return docs;
}

/** Ids and tokens the way the guides show them: `madb93fc00a2cf6f4449`, a 64-hex marketplace token. */
const idLike = /^[a-z_]{0,4}[0-9a-f]{16,}$/;

function stringPairs(value: unknown, out: Array<[string, string]> = []): Array<[string, string]> {
  if (Array.isArray(value)) for (const v of value) stringPairs(v, out);
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (typeof v === 'string') out.push([k, v]);
      else stringPairs(v, out);
    }
  }
  return out;
}

/** Every key of a value, at any depth: `{"a":{"b":1}}` → a, b. */
function keysOf(value: unknown, out: Set<string> = new Set()): Set<string> {
  if (Array.isArray(value)) for (const v of value) keysOf(v, out);
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      out.add(k);
      keysOf(v, out);
    }
  return out;
}

/**
 * What the guide shows that the server did not answer: a `"key":` no answer of the block has, at any depth, and a
 * `"status":"…"` value none of its statuses is (a state named in the guide is one the reader sees at that step).
 * Ids, dates and amounts differ from run to run and are not compared.
 */
export function shownButNotAnswered(shown: string, answers: readonly unknown[]): string[] {
  const keys = keysOf(answers);
  const statuses = new Set(
    stringPairs(answers)
      .filter(([k]) => k === 'status')
      .map(([, v]) => v),
  );
  const missing: string[] = [];
  for (const m of shown.matchAll(/"(\w+)":/g))
    if (!keys.has(m[1] as string)) missing.push(`key "${m[1]}"`);
  for (const m of shown.matchAll(/"status":"([^"]*)"/g))
    if (!statuses.has(m[1] as string)) missing.push(`"status":"${m[1]}"`);
  return [...new Set(missing)];
}

/** Shown id → real id, pairing the n-th `"key":"value"` of the shown answer with the n-th of the real one. */
export function idReplacements(shown: string, answers: readonly unknown[]): Map<string, string> {
  const real = stringPairs(answers);
  const byKey = new Map<string, string[]>();
  for (const [k, v] of real) byKey.set(k, [...(byKey.get(k) ?? []), v]);
  const seen = new Map<string, number>();
  const out = new Map<string, string>();
  for (const m of shown.matchAll(/"(\w+)":"([^"]+)"/g)) {
    const [, key, value] = m as unknown as [string, string, string];
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    const got = byKey.get(key)?.[n];
    if (idLike.test(value) && got !== undefined && got !== value) out.set(value, got);
  }
  return out;
}

/** One bash for a guide: blocks run in it one after another, as in a reader's terminal. */
export class DocShell {
  private readonly bash: ChildProcessWithoutNullStreams;
  private stdout = '';
  private stderr = '';

  constructor(env: Record<string, string>, cwd: string) {
    this.bash = spawn('bash', ['--norc', '--noprofile'], { env, cwd });
    this.bash.stdout.on('data', (d: Buffer) => {
      this.stdout += d.toString('utf8');
    });
    this.bash.stderr.on('data', (d: Buffer) => {
      this.stderr += d.toString('utf8');
    });
  }

  /** Runs a block; its standard output and error once it is done. */
  async run(script: string, timeoutMs: number): Promise<{ stdout: string; stderr: string }> {
    const done = `@@done-${Math.random().toString(36).slice(2)}@@`;
    this.stdout = '';
    this.stderr = '';
    this.bash.stdin.write(`${script}\necho; echo ${done}\n`);
    const startedMs = Date.now();
    while (!this.stdout.includes(done)) {
      if (Date.now() - startedMs > timeoutMs)
        throw new Error(`block still running after ${timeoutMs} ms: ${this.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { stdout: this.stdout.slice(0, this.stdout.indexOf(done)), stderr: this.stderr };
  }

  close(): void {
    this.bash.stdin.end();
    this.bash.kill();
  }
}
