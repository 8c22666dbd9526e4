// Where the machine's CPU went during one load: the servers under test, PostgreSQL's processes, this bench (the
// load generator) and the box as a whole, from /proc (Linux). On a box whose cores are all busy, a second server
// process cannot add throughput: this says whether that was the case, rather than leaving it to be guessed.
import fs from 'node:fs';

export interface CpuShares {
  /** Busy share of all the box's cores, 0..100. */
  readonly boxBusyPct: number;
  /** Each in percent of one core (two fully busy cores are 200). */
  readonly serversPct: number;
  readonly postgresPct: number;
  readonly loadGeneratorPct: number;
}

const ticksPerSecond = 100;

function processTicks(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

function postgresPids(): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim().startsWith('postgres'))
        pids.push(Number(entry));
    } catch {
      /* gone meanwhile */
    }
  }
  return pids;
}

function boxTicks(): { busy: number; total: number } {
  const cpu = fs
    .readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const total = cpu.reduce((a, b) => a + b, 0);
  const idle = (cpu[3] ?? 0) + (cpu[4] ?? 0);
  return { busy: total - idle, total };
}

/** Starts counting; `stop()` gives the shares since. PostgreSQL's backends are summed over those alive at stop. */
export function measureCpu(serverPids: readonly number[]): { stop(): CpuShares | null } {
  if (!fs.existsSync('/proc/stat')) return { stop: () => null };
  const started = {
    at: performance.now(),
    box: boxTicks(),
    self: process.cpuUsage(),
    servers: serverPids.map(processTicks),
    pg: new Map(postgresPids().map((p) => [p, processTicks(p)])),
  };
  return {
    stop() {
      const seconds = (performance.now() - started.at) / 1000;
      const box = boxTicks();
      const servers = serverPids.reduce(
        (sum, pid, i) => sum + processTicks(pid) - started.servers[i]!,
        0,
      );
      const pg = postgresPids().reduce(
        (sum, pid) => sum + processTicks(pid) - (started.pg.get(pid) ?? 0),
        0,
      );
      const self = process.cpuUsage(started.self);
      const pct = (ticks: number) => Math.round((ticks / ticksPerSecond / seconds) * 100);
      return {
        boxBusyPct: Math.round(
          ((box.busy - started.box.busy) / Math.max(1, box.total - started.box.total)) * 100,
        ),
        serversPct: pct(servers),
        postgresPct: pct(pg),
        loadGeneratorPct: Math.round(((self.user + self.system) / 1e6 / seconds) * 100),
      };
    },
  };
}

/** CPU per request in microseconds: the figure beside throughput that this shared box's other work skews least. */
export interface CpuPerRequest {
  readonly serverUs: number;
  readonly postgresUs: number;
  readonly loadGeneratorUs: number;
}

/** Per request from the shares of a load of `perSecond` requests a second (percent of a core / requests a second). */
export function cpuPerRequest(shares: CpuShares | null, perSecond: number): CpuPerRequest | null {
  if (shares === null || perSecond <= 0) return null;
  const us = (pct: number) => Math.round((pct * 1e4) / perSecond);
  return {
    serverUs: us(shares.serversPct),
    postgresUs: us(shares.postgresPct),
    loadGeneratorUs: us(shares.loadGeneratorPct),
  };
}
