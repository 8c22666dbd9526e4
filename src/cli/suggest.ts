// What a usage error adds to commander's message: the command the user probably meant, and which help to read.
import type { Command } from './command.ts';
import { allCommands, processCommands } from './all-commands.ts';

/** Levenshtein distance, for suggesting a command close to a mistyped one. */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(
        row[j]! + 1,
        next[j - 1]! + 1,
        row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    row = next;
  }
  return row[b.length]!;
}

/** `(Did you mean accounts?)` for `cobro acounts`, `(Did you mean accounts list?)` for `cobro accounts lst`. */
export function suggest(argv: readonly string[], known: readonly Command[]): string {
  const names = [...processCommands.map((p) => p.name), ...known.map((c) => c.name)];
  const [first, second] = argv;
  const group = names.some((n) => n.startsWith(`${first} `));
  const candidates = group
    ? names
        .filter((n) => n.startsWith(`${first} `))
        .map((n) => ({ name: n, word: n.split(' ')[1]!, typed: second ?? '' }))
    : [...new Set(names.map((n) => n.split(' ')[0]!))].map((w) => ({
        name: w,
        word: w,
        typed: first ?? '',
      }));
  const best = candidates
    .map((c) => ({ ...c, d: distance(c.typed, c.word) }))
    .filter((c) => c.d <= Math.max(1, Math.floor(c.word.length / 3)))
    .sort((a, b) => a.d - b.d)[0];
  return best === undefined ? '' : `(Did you mean ${best.name}?)\n`;
}

/** `accounts create ` for argv `accounts create --bogus`, so the hint names the command's own help. */
export function helpPathOf(argv: readonly string[]): string {
  const known = new Set(allCommands().flatMap((c) => c.name.split(' ')));
  const words: string[] = [];
  for (const a of argv.slice(0, 2)) {
    if (a.startsWith('-') || !known.has(a)) break;
    words.push(a);
  }
  return words.length === 0 ? '' : `${words.join(' ')} `;
}
