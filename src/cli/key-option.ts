// `--key KEY` of a command that keys its work (wallet credit, disputes open): held to the API's Idempotency-Key rule
// (src/platform/idempotency/key-rule.ts), so a blank `--key " "` or a key with a line break is a usage error, exit 2
// (decision 1155), and `--key " T-1 "` is the key `T-1`, as the header's would be.
import { checkKey } from '../platform/idempotency/key-rule.ts';
import { fail, stringOption, type CommandArgs, type CommandOutput } from './command.ts';

/** The trimmed key, undefined when absent, or the usage error to print. */
export function keyOption(
  args: CommandArgs,
  lengthMax: number,
): string | undefined | CommandOutput {
  const raw = stringOption(args, 'key');
  if (raw === undefined) return undefined;
  const checked = checkKey(raw, lengthMax);
  if (checked.ok) return checked.key;
  return fail(
    `--key must have 1 to ${lengthMax} characters besides the spaces around them, letters, digits, spaces or punctuation (no line break or control character; at most U+00FF, as an Idempotency-Key header)`,
    2,
  );
}
