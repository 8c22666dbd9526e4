// A Kysely plugin that counts the statements run on a database handle (startTestApp's dbPlugin option).
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';

export class StatementCounter implements KyselyPlugin {
  count = 0;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    this.count++;
    return args.result;
  }
}

/** A statement's operation node as text, for a test to pick statements by what they name. */
function nodeText(node: RootOperationNode): string {
  return JSON.stringify(node, (_key, value: unknown) =>
    typeof value === 'bigint' ? value.toString() : value,
  );
}

/** What a gate sees of a statement: its operation node as text ('' for a compiled query run as it is), its rows. */
export interface WatchedStatement {
  readonly text: string;
  readonly rows: readonly UnknownRow[];
}

/**
 * Counts the statements `watches` picks and can hold the next one's answer: `holdNext` answers `reached` once the
 * statement ran and its answer is held, and `release` lets it go. The shared-read tests (decisions 625, 715) hold
 * one read to send readers while it runs.
 */
export class StatementGate extends StatementCounter {
  watched = 0;
  readonly #texts = new WeakMap<object, string>();
  #hold: { reached: () => void; released: Promise<void> } | null = null;
  readonly #watches: (statement: WatchedStatement) => boolean;

  constructor(watches: (statement: WatchedStatement) => boolean) {
    super();
    this.#watches = watches;
  }

  holdNext(): { reached: Promise<void>; release: () => void } {
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const reached = new Promise<void>((resolve) => {
      this.#hold = { reached: resolve, released };
    });
    return { reached, release };
  }

  override transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.#texts.set(args.queryId, nodeText(args.node));
    return args.node;
  }

  override async transformResult(
    args: PluginTransformResultArgs,
  ): Promise<QueryResult<UnknownRow>> {
    await super.transformResult(args);
    const text = this.#texts.get(args.queryId) ?? '';
    if (!this.#watches({ text, rows: args.result.rows })) return args.result;
    this.watched++;
    const hold = this.#hold;
    this.#hold = null;
    if (hold !== null) {
      hold.reached();
      await hold.released;
    }
    return args.result;
  }
}
