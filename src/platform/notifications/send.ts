// One HTTP POST of a callback: guarded address, total time limit, no redirects, capped response excerpt.
import http from 'node:http';
import https from 'node:https';
import { urlToHttpOptions } from 'node:url';
import {
  checkCallbackUrl,
  guardedLookup,
  type BaseLookup,
  type CallbackPolicy,
  type Reach,
  type UrlCheck,
} from './ssrf-guard.ts';
import { limits } from '../../limits/index.ts';
import { nameServerLookup, nameServerResolver } from './name-servers.ts';

export interface SendRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly policy: CallbackPolicy;
  /** Whose callback it is: a trusted origin trusts the accounts it names (decision 987). */
  readonly accountId: string;
  readonly timeoutMs?: number;
  /** Ends the send unanswered when it aborts (a stopping worker), or refuses it if aborted already. */
  readonly cutOff?: AbortSignal;
  /** The resolver under the guard; the system's unless a test stands in for DNS. */
  readonly resolve?: BaseLookup;
}

export interface SendResult {
  /** HTTP status of the answer, or null when none came (refused, unreachable, timed out). */
  readonly statusCode: number | null;
  readonly error: string | null;
  /** The answer's first KiB; null when none came, or through a trusted origin open to every account (decision 987). */
  readonly responseExcerpt: string | null;
  readonly latencyMs: number;
  /** No answer came within the time limit: the receiver hangs (deliver.ts sends its origin nothing more this run). */
  readonly timedOut?: true;
}

// Connections are kept alive and reused per origin: a new TCP (and TLS) connection per callback cost more than
// the callback. The address guard runs when a connection is made, so a reused one goes to an address already
// checked at the reach it was checked at: the pools are per reach and protocol, keyed by host and port. Whether an
// origin may reach local addresses depends on the account too (decision 987), so a connection one account opened to
// a private address never serves another's callback to the same origin, checked at public reach. Idle sockets are
// unref'd by the agent and do not keep a process alive.
const agentOptions = {
  keepAlive: true,
  maxSockets: limits.deliveryConcurrencyMax,
  maxFreeSockets: limits.deliveryConcurrencyMax,
  timeout: limits.deliveryIdleSocketMs,
} as const;
const agentsOf = () => ({
  'http:': new http.Agent(agentOptions),
  'https:': new https.Agent(agentOptions),
});
const agents: Readonly<Record<Reach, ReturnType<typeof agentsOf>>> = {
  public: agentsOf(),
  local: agentsOf(),
};

// Whether a URL may be called depends only on the URL, the account and the policy, and an outbox sends to few URLs
// many times: each is parsed and checked once per account and policy (the process's config), not once per callback.
// Maps are emptied when full rather than grown.
interface Target {
  readonly check: UrlCheck;
  /** node:http's options for the URL (protocol, host, port, path), parsed once. */
  readonly options: http.RequestOptions | null;
}

const targets = new WeakMap<CallbackPolicy, Map<string, Target>>();

function targetOf(text: string, policy: CallbackPolicy, accountId: string): Target {
  let known = targets.get(policy);
  if (known === undefined) targets.set(policy, (known = new Map()));
  // An account id holds no space (acc + hex), so the key reads back one way.
  const key = `${accountId} ${text}`;
  let target = known.get(key);
  if (target === undefined) {
    if (known.size >= limits.callbackTargetsCachedMax) known.clear();
    const check = checkCallbackUrl(text, policy, accountId);
    known.set(key, (target = { check, options: check.ok ? requestOptionsOf(check.url) : null }));
  }
  return target;
}

/** Only what names the endpoint: a URL's other fields make node:http test the options as a URL on every call. */
function requestOptionsOf(url: URL): http.RequestOptions {
  const { protocol, hostname, port, path } = urlToHttpOptions(url);
  return { protocol, hostname, path, ...(port !== undefined ? { port } : {}) };
}

// The guard of each reach over its resolver: the name servers for public hosts, the system's (with its hosts file)
// for loopback and private ones (name-servers.ts); a test's stand-in resolver gets its own.
const defaultGuards: Readonly<Record<Reach, ReturnType<typeof guardedLookup>>> = {
  public: guardedLookup('public', nameServerLookup(nameServerResolver())),
  local: guardedLookup('local'),
};

function elapsedMs(startNs: bigint): number {
  return Number((process.hrtime.bigint() - startNs) / 1_000_000n);
}

const stoppedBeforeSending = 'not sent: the worker was stopping';
const stoppedWhileSending = 'no answer before the worker stopped';

type Finish = (statusCode: number | null, error: string | null, excerpt: string | null) => void;

/**
 * The receiver's answer: its status and a short excerpt, read to its end or cut at the excerpt's size. Returns what
 * ends the send with the answer read so far: once the status has come, the time limit or a stopping worker cutting
 * a slow body short does not unsay it (decision 970), so a 2xx in time is a delivery and is not sent again. Without
 * `excerptKept` the body is read and dropped: the status is all the attempt records (decision 987).
 */
function readAnswer(res: http.IncomingMessage, finish: Finish, excerptKept: boolean): () => void {
  const statusCode = res.statusCode ?? null;
  const chunks: Buffer[] = [];
  let size = 0;
  const done = () => {
    const excerpt = excerptKept
      ? Buffer.concat(chunks).subarray(0, limits.responseExcerptBytesMax).toString('utf8')
      : null;
    const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
    finish(statusCode, ok ? null : `HTTP ${statusCode}`, excerpt);
  };
  res.on('data', (chunk: Buffer) => {
    if (excerptKept && size < limits.responseExcerptBytesMax) chunks.push(chunk);
    size += chunk.length;
    // The receiver's answer matters only for its status and a short excerpt; stop reading a long one (the
    // connection goes with it rather than back to the pool).
    if (size >= limits.responseExcerptBytesMax) {
      done();
      res.destroy();
    }
  });
  // Read to its end, the connection returns to the pool for the next callback to that origin.
  res.on('end', done);
  res.on('error', done);
  return done;
}

/** A send that never left: a refused URL, or a worker already stopping. */
function unsent(error: string): Promise<SendResult> {
  return Promise.resolve({ statusCode: null, error, responseExcerpt: null, latencyMs: 0 });
}

export function sendWebhook(request: SendRequest): Promise<SendResult> {
  const startNs = process.hrtime.bigint();
  const { check: checked, options } = targetOf(request.url, request.policy, request.accountId);
  if (!checked.ok || options === null)
    return unsent(`refused: ${checked.ok ? 'not a valid URL' : checked.reason}`);
  if (request.cutOff?.aborted === true) return unsent(stoppedBeforeSending);
  const timeoutMs = request.timeoutMs ?? limits.deliveryTimeoutMs;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    let timedOut = false;
    // Set once the answer's status has come: ends the send with it.
    let answered: (() => void) | null = null;
    const finish: Finish = (statusCode, error, excerpt) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.cutOff?.removeEventListener('abort', cutOff);
      resolve({
        statusCode,
        error: error === null ? null : error.slice(0, limits.deliveryErrorLengthMax),
        responseExcerpt: excerpt,
        latencyMs: elapsedMs(startNs),
        ...(timedOut ? { timedOut: true as const } : {}),
      });
    };
    const secure = options.protocol === 'https:';
    const client = secure ? https : http;
    // node:http never follows redirects, so a 3xx answer arrives here as a failed attempt.
    const req = client.request(
      {
        ...options,
        method: 'POST',
        headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
        // Called only when the agent opens a connection: every new connection is checked.
        lookup: (request.resolve === undefined
          ? defaultGuards[checked.reach]
          : guardedLookup(checked.reach, request.resolve)) as never,
        agent: agents[checked.reach][secure ? 'https:' : 'http:'],
      },
      (res) => {
        answered = readAnswer(res, finish, checked.answerKept);
      },
    );
    // Still timed out when only the body was slow: the lane was held the whole time (lanes.ts counts it).
    const timer = setTimeout(() => {
      timedOut = true;
      if (answered !== null) answered();
      else finish(null, `timed out after ${timeoutMs} ms`, null);
      req.destroy();
    }, timeoutMs);
    const cutOff = (): void => {
      if (answered !== null) answered();
      else finish(null, stoppedWhileSending, null);
      req.destroy();
    };
    request.cutOff?.addEventListener('abort', cutOff, { once: true });
    req.on('error', (error: NodeJS.ErrnoException) => finish(null, error.message, null));
    req.end(request.body);
  });
}
