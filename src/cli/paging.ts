// The pieces every operator `list` shares: a `--status` among a state table's states, a `--limit`/`--page` window,
// and the page's text with its `(first-last of total)` footer.
import { limits } from '../limits/index.ts';
import { fail, ok, stringOption, type CommandArgs, type CommandOutput } from './command.ts';

/** A positive whole option, or the message refusing it. */
export function pageOption(
  args: CommandArgs,
  name: string,
  fallback: number,
  max: number,
): number | CommandOutput {
  const text = stringOption(args, name) ?? String(fallback);
  if (!/^\d{1,6}$/.test(text) || Number(text) < 1 || Number(text) > max)
    return fail(`--${name} must be a whole number from 1 to ${max}`, 2);
  return Number(text);
}

/** `--status`, one of `states` (absent: undefined), or the message refusing it. */
export function statusOption<S extends string>(
  args: CommandArgs,
  states: readonly S[],
): S | undefined | CommandOutput {
  const status = stringOption(args, 'status');
  if (status === undefined || (states as readonly string[]).includes(status))
    return status as S | undefined;
  return fail(`--status must be one of ${states.join(', ')}`, 2);
}

export interface PageWindow {
  readonly page: number;
  readonly limit: number;
  readonly offset: number;
}

/** `--limit` (default 50) and `--page` (default 1), or the message refusing one. */
export function pageWindow(args: CommandArgs): PageWindow | CommandOutput {
  const limit = pageOption(args, 'limit', 50, limits.cliListRowsMax);
  if (typeof limit !== 'number') return limit;
  const page = pageOption(args, 'page', 1, limits.cliListRowsMax);
  if (typeof page !== 'number') return page;
  return { page, limit, offset: (page - 1) * limit };
}

/** One line per row and the footer; `no <noun>` when there are none at all, or none on this page. */
export function pageText(
  noun: string,
  lines: readonly string[],
  window: PageWindow,
  total: number,
): CommandOutput {
  if (lines.length === 0)
    return ok(total === 0 ? `no ${noun}` : `no ${noun} on page ${window.page} (${total} in all)`);
  const first = window.offset + 1;
  return ok([...lines, `(${first}-${first + lines.length - 1} of ${total})`].join('\n'));
}

export function isOutput(value: unknown): value is CommandOutput {
  return typeof value === 'object' && value !== null && 'exitCode' in value;
}
