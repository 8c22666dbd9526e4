// Concurrent reads of one wallet page share one statement (decision 625). A read that arrives while the same page's
// previous read runs waits for the next one, never joins the one running: that one may have started before the
// caller's own last write committed, and a merchant reads its writes (a payout, then its balance). Nothing waits for
// a group to fill (platform/work/keyed-batcher.ts).
import type { AppContext } from '../../platform/context.ts';
import type { Engine } from '../../platform/db/database.ts';
import { KeyedBatcher, batchingFor } from '../../platform/work/keyed-batcher.ts';
import { limits } from '../../limits/index.ts';
import { readWalletSummary, type SummaryQuery, type WalletSummaryBody } from './wallet-query.ts';

interface Queued {
  readonly ctx: AppContext;
  readonly query: SummaryQuery;
}

declare module '../../platform/context.ts' {
  interface AppContext {
    /** The app's shared reads of wallet pages, made once by the composition root (src/runtime.ts). */
    readonly walletSummaryReads: WalletSummaryReads;
  }
}

export type WalletSummaryReads = KeyedBatcher<Queued, WalletSummaryBody>;

export function walletSummaryReads(engine: Engine): WalletSummaryReads {
  return new KeyedBatcher<Queued, WalletSummaryBody>(
    async (_key, items) => {
      const { ctx, query } = items[0]!;
      const body = await readWalletSummary(ctx, query);
      return items.map(() => ({ ok: true, value: body }));
    },
    limits.walletSummaryReadGroupMax,
    batchingFor(engine),
  );
}

/** The page, read by the next statement for it: its key names every input of the answer. */
export function walletSummary(ctx: AppContext, query: SummaryQuery): Promise<WalletSummaryBody> {
  const key = `${query.accountId}\u0000${query.currency}\u0000${query.page}\u0000${query.perPage}`;
  return ctx.walletSummaryReads.run(key, { ctx, query });
}
