// Which queued callback a free delivery lane sends next (decision 800): one account's callbacks leave lanes for the
// others', and an origin that lets callbacks time out gets nothing more in the run.
import type { attemptRecorder } from './attempt-record.ts';
import type { ClaimedNotification } from './claim.ts';
import type { SendResult } from './send.ts';
import type { WebhookSecrets } from '../auth/account-directory.ts';
import { limits } from '../../limits/index.ts';

export interface Queued {
  readonly row: ClaimedNotification;
  readonly secret: Promise<WebhookSecrets | null>;
}

/**
 * The next row for a free lane: the first queued whose account has fewer than limits.deliveryAccountLanesMax sends in
 * flight, else the first queued (decision 800). A merchant whose receiver hangs so holds at most that many lanes while
 * other merchants' callbacks wait, and a lane is never idle while a row waits, so a batch still finishes within
 * `ceil(rows / lanes) + 1` send timeouts, the lease's bound, whatever the order the rows go in.
 */
function takeNext(queue: Queued[], inFlight: ReadonlyMap<string, number>): Queued | undefined {
  const index = queue.findIndex(
    (q) => (inFlight.get(q.row.accountId) ?? 0) < limits.deliveryAccountLanesMax,
  );
  return queue.splice(index === -1 ? 0 : index, 1)[0];
}

/** The origin a callback goes to (the URL itself if it does not parse: its send is refused anyway). */
function originOf(url: string): string {
  return URL.canParse(url) ? new URL(url).origin : url;
}

/**
 * Takes out of the queue, and records as failed attempts retried on the schedule, the callbacks to an origin that let
 * limits.deliveryStallTimeoutsMin of this run's time out (decision 800): each would hold a lane for the whole timeout
 * too, and the next batch, other merchants' callbacks with it, is claimed only once the queue is empty.
 */
function skipStalled(
  queue: Queued[],
  stalled: ReadonlySet<string>,
  timeoutMs: number,
  recorder: ReturnType<typeof attemptRecorder>,
): void {
  if (stalled.size === 0) return;
  for (let i = queue.length - 1; i >= 0; i--) {
    const origin = originOf(queue[i]!.row.url);
    if (!stalled.has(origin)) continue;
    const [skipped] = queue.splice(i, 1);
    recorder.add({
      row: skipped!.row,
      result: {
        statusCode: null,
        error: `not sent: ${origin} let earlier callbacks time out after ${timeoutMs} ms`,
        responseExcerpt: null,
        latencyMs: 0,
      },
    });
  }
}

/** One run's sends in flight per account and timeouts per origin, which decide what its lanes send next. */
export function laneTraffic(
  timeoutMs: number,
  recorder: ReturnType<typeof attemptRecorder>,
  stallTimeoutsMin: number,
) {
  const inFlight = new Map<string, number>();
  const timeouts = new Map<string, number>();
  const stalled = new Set<string>();
  return {
    /** The next row to send, once the rows of stalled origins are recorded unsent; undefined when none is queued. */
    next(queue: Queued[]): Queued | undefined {
      skipStalled(queue, stalled, timeoutMs, recorder);
      return takeNext(queue, inFlight);
    },
    /** Sends `next` (through `sendIt`), counted in flight for its account, and its timeout against its origin. */
    async send(next: Queued, sendIt: () => Promise<SendResult>): Promise<SendResult> {
      const account = next.row.accountId;
      inFlight.set(account, (inFlight.get(account) ?? 0) + 1);
      let result: SendResult;
      try {
        result = await sendIt();
      } finally {
        inFlight.set(account, inFlight.get(account)! - 1);
      }
      if (result.timedOut === true) {
        const origin = originOf(next.row.url);
        timeouts.set(origin, (timeouts.get(origin) ?? 0) + 1);
        if (timeouts.get(origin)! >= stallTimeoutsMin) stalled.add(origin);
      }
      return result;
    },
  };
}
