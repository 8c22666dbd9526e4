// Decision 705, finding 6: `cobro notifications show|retry --help` gave `ntf0123456789abcdef01` as the example id,
// but callbacks are `msg_` + 24 hex (enqueue.ts newId('msg_', 24); docs/callbacks.md): an operator copying the
// example's shape looked for ids that do not exist. Before the fix both examples failed the pattern below.
import { describe, expect, it } from 'vitest';
import { notificationsRetry, notificationsShow } from '../../src/cli/commands/notifications.ts';

describe('cobro notifications examples', () => {
  it.each([notificationsShow, notificationsRetry])(
    '$name names an id of the real shape',
    (command) => {
      for (const example of command.examples ?? []) expect(example).toMatch(/ msg_[0-9a-f]{24}\b/);
    },
  );
});
