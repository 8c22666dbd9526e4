// Where a keyless payout waits for its group commit (decisions 220, 330, 430, 590). Every payout goes to the one
// group shared by accounts (payout-shared-group.ts), unless its account has work in a lane of its own: there go the
// payouts a shared group evicted because another transaction held one of their account's rows, and the account's
// next ones while that lane is busy, so an account's payouts never pass each other between the two.
import type { Engine } from '../../platform/db/database.ts';
import { KeyedBatcher, batchingFor } from '../../platform/work/keyed-batcher.ts';
import { limits } from '../../limits/index.ts';
import { writeAccountGroup, type Queued } from './payout-create.ts';
import type { CreateOutcome } from './payout-plan.ts';
import { evicted, writeSharedGroup, type SharedOutcome } from './payout-shared-group.ts';

/** The shared group's one key: every account's payouts queue behind the group that runs. */
const sharedKey = 'shared';

export class PayoutGroups {
  readonly #shared: KeyedBatcher<Queued, SharedOutcome>;
  readonly #ownLanes: KeyedBatcher<Queued, CreateOutcome>;

  /** With PGlite each group is gathered one loop turn later (decision 400). */
  constructor(engine: Engine) {
    const options = batchingFor(engine);
    this.#shared = new KeyedBatcher(writeSharedGroup, limits.walletGroupCommitPayoutsMax, options);
    this.#ownLanes = new KeyedBatcher(
      writeAccountGroup,
      limits.walletGroupCommitPayoutsMax,
      options,
    );
  }

  /** Payouts waiting for a group (tests wait on it; not those being written). */
  get queued(): number {
    return this.#shared.queued + this.#ownLanes.queued;
  }

  async run(item: Queued): Promise<CreateOutcome> {
    const accountId = item.planned.request.accountId;
    if (!this.#ownLanes.has(accountId)) {
      const outcome = await this.#shared.run(sharedKey, item);
      if (outcome !== evicted) return outcome;
    }
    return this.#ownLanes.run(accountId, item);
  }
}

declare module '../../platform/context.ts' {
  interface AppContext {
    /** The app's group commits of payouts, made once by the composition root (src/runtime.ts, decision 475). */
    readonly payoutGroups: PayoutGroups;
  }
}
