// Bounds of the process: the operator socket, DATA_DIR's free space and permissions, shutdown, /metrics, time
// zones kept; and the ranges of the environment variables src/platform/process/config.ts reads.
import assert from 'node:assert/strict';
import { secondMs, minuteMs } from './units.ts';

export const processLimits = {
  /**
   * Accounts named one by one in a production start's note of accounts on Transbank's integration (test)
   * environment (decision 984); past it the note counts the rest.
   */
  startNoteAccountsMax: 20,
  // The operator socket.
  opsRequestBytesMax: 64 * 1024,
  /** How long the CLI waits to learn whether a server answers on the operator socket. */
  opsPingTimeoutMs: 2 * secondMs,
  /**
   * How long the CLI waits for a word from the serving process while it runs a command: the server writes a
   * keepalive line every opsKeepaliveMs while the command runs (decision 810), so only a server that stopped
   * answering reaches this, never a long `cobro backup`.
   */
  opsCommandTimeoutMs: 2 * minuteMs,
  /** How often the serving process writes a keepalive line to the operator socket while a command runs. */
  opsKeepaliveMs: 10 * secondMs,
  /**
   * Free space DATA_DIR's file system must keep for the embedded database to accept writes: a WAL segment (16 MB)
   * filled whole, the data files it describes, and a checkpoint's worth to spare (decision 420).
   */
  dataDirFreeBytesMin: 64 * 1024 * 1024,
  dataDirSpaceCheckMs: secondMs,
  /** The largest backup file `cobro restore` reads: it holds the file and its unpacked tar in memory at once. */
  backupFileBytesMax: 1024 * 1024 * 1024,
  /** A backup's header line (format, migration names, key): past this the file is not a backup. */
  backupHeaderBytesMax: 64 * 1024,
  /**
   * The step a backup is (de)compressed in, off the event loop: with zlib's 16 kB default each step waits for a turn
   * of a busy server's loop, and a 40 MB database took 20 s under load instead of about one.
   */
  backupCompressStepBytes: 4 * 1024 * 1024,
  /** A stopping server finishes its callback deliveries in flight before it gives up. */
  shutdownGraceMs: 20 * secondMs,
  /** A /metrics scrape must never hold a connection for long: a slow count fails the scrape, not the API. */
  metricsQueryTimeoutMs: 2 * secondMs,
  /** Time zones whose Intl formatter a process keeps (src/platform/time/time-format.ts): the service zone, plus what
   *  tests ask for; past this the cache starts again. */
  timeZonesKeptMax: 64,
  /**
   * The years a local date a client writes may name (src/platform/time/time-format.ts parseLocal; decision 680).
   * Before year 1 the drivers write a form PostgreSQL refuses (PGlite) or a BC date; no payment dates from before 1900.
   */
  localYearMin: 1900,
  localYearMax: 9999,
} as const;

/** The operator socket's waits, asserted with the others by assertLimits (index.ts). */
function assertOpsSocketBounds(): void {
  const l = processLimits;
  assert.ok(l.opsPingTimeoutMs < l.opsCommandTimeoutMs, 'a ping answers sooner than a command');
  // A running command's keepalives (decision 810) come several times inside the CLI's wait for a word.
  assert.ok(3 * l.opsKeepaliveMs <= l.opsCommandTimeoutMs, 'keepalives come inside the CLI wait');
}

/** The operator socket's waits, and CALLBACK_RETENTION_DAYS's range (index.ts's assertLimits runs it). */
export function assertProcessBounds(): void {
  assertOpsSocketBounds();
  assertRetentionBounds();
}

/** CALLBACK_RETENTION_DAYS's default lies in its range, whose least is no less than the prune command's. */
function assertRetentionBounds(): void {
  const c = configLimits;
  assert.ok(c.callbackPruneDaysMin <= c.callbackRetentionDaysMin);
  assert.ok(c.callbackRetentionDaysMin <= c.callbackRetentionDaysDefault);
  assert.ok(c.callbackRetentionDaysDefault <= c.callbackRetentionDaysMax);
}

/** Environment variables: defaults and ranges of PORT, SETTLEMENT_DELAY_DAYS, METRICS_TOKEN and the others
 *  src/platform/process/config.ts reads. */
export const configLimits = {
  portDefault: 8080,
  portMin: 0,
  portMax: 65535,
  settlementDelayDaysDefault: 1,
  settlementDelayDaysMin: 0,
  settlementDelayDaysMax: 60,
  /**
   * CALLBACK_RETENTION_DAYS (decision 994): days a delivered or failed callback is kept after its last attempt. 30,
   * as Stripe keeps its events; at least a week, past the retry schedule's three days and a long weekend, so a
   * merchant back from an outage still sees and resends what failed; `0` keeps them all.
   */
  callbackRetentionDaysDefault: 30,
  callbackRetentionDaysMin: 7,
  callbackRetentionDaysMax: 3650,
  /** `cobro notifications prune --older-than-days N`: an operator's deliberate run may go below the setting's week. */
  callbackPruneDaysMin: 1,
  metricsTokenLengthMin: 16,
  metricsTokenLengthMax: 200,
  /** CALLBACK_TRUSTED_ORIGINS entries (decision 151): a handful of internal receivers, not a second DNS. */
  callbackTrustedOriginsMax: 20,
  /** Accounts one trusted origin may name (`origin@acc…|acc…`, decision 987): an operator's own few merchants. */
  callbackTrustedOriginAccountsMax: 20,
  /** READY_TIMEOUT_MS (decision 410): a cold start takes about a second; a minute is far past any slow disk. */
  readyTimeoutMsDefault: 60_000,
  readyTimeoutMsMin: 100,
  readyTimeoutMsMax: 60 * 60_000,
  /** While a start migrates, its main thread beats this often at most... (decision 930) */
  readyBeatMsMax: 1000,
  /** ...and at least this many times within READY_TIMEOUT_MS, so one late beat is never taken for a hang. */
  readyBeatsPerTimeoutMin: 4,
  /** TRUST_PROXY: addresses or networks of the reverse proxies in front (docs/going-live.md). */
  trustedProxiesMax: 20,
} as const;

/** DATA_DIR permission passes (decision 072). */
export const dataDirLimits = {
  /** Entries of DATA_DIR a permission pass looks at; the embedded database holds a few thousand. */
  scanEntriesMax: 100_000,
  /** Loose paths named one per warning line at start; the rest are counted in one more line. */
  loosePathWarningsMax: 50,
} as const;
