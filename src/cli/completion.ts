// Shell completion scripts for `cobro completion bash|zsh`, generated from the command tree. They are static (no
// cobro process runs on Tab), so they stay right as long as the shell loads them anew from the installed cobro.

export const completionShells = ['bash', 'zsh'] as const;
export type CompletionShell = (typeof completionShells)[number];

export interface CompletionEntry {
  /** One or two words: `serve`, `accounts create`. */
  readonly name: string;
  readonly summary: string;
  /** `--json`, `--limit`, ... */
  readonly options: readonly string[];
  /** Words offered as the first operand (`bash`, `zsh` for `completion`). */
  readonly values?: readonly string[];
}

interface Node {
  readonly word: string;
  summary: string;
  options: string[];
  values: string[];
  readonly children: Map<string, Node>;
}

function treeOf(entries: readonly CompletionEntry[]): Map<string, Node> {
  const top = new Map<string, Node>();
  const node = (map: Map<string, Node>, word: string): Node => {
    let n = map.get(word);
    if (n === undefined) {
      n = { word, summary: '', options: [], values: [], children: new Map() };
      map.set(word, n);
    }
    return n;
  };
  for (const e of entries) {
    const [first, second] = e.name.split(' ');
    if (first === undefined) continue;
    const target =
      second === undefined ? node(top, first) : node(node(top, first).children, second);
    target.summary = e.summary;
    target.options = [...e.options, '--help'];
    target.values = [...(e.values ?? [])];
  }
  for (const n of top.values()) {
    if (n.summary === '' && n.children.size > 0)
      n.summary = `${n.word}: ${[...n.children.keys()].join(', ')}`;
  }
  return top;
}

const shellWords = (words: readonly string[]): string => words.join(' ');

function bash(top: Map<string, Node>): string {
  const leafWords = (n: Node): string => shellWords([...n.values, ...n.options]);
  const cases = [...top.values()].map((n) => {
    if (n.children.size === 0) return `    ${n.word}) words="${leafWords(n)}" ;;`;
    const inner = [...n.children.values()]
      .map((c) => `        ${c.word}) words="${leafWords(c)}" ;;`)
      .join('\n');
    return [
      `    ${n.word})`,
      `      if [ "$COMP_CWORD" -eq 2 ]; then COMPREPLY=($(compgen -W "${shellWords([...n.children.keys(), ...n.options])}" -- "$cur")); return 0; fi`,
      `      case "$w2" in`,
      inner,
      '      esac ;;',
    ].join('\n');
  });
  return [
    '# bash completion for cobro. Load it with: source <(cobro completion bash)',
    '_cobro_complete() {',
    '  local cur="${COMP_WORDS[COMP_CWORD]}" w1="${COMP_WORDS[1]}" w2="${COMP_WORDS[2]}" words=""',
    '  COMPREPLY=()',
    `  if [ "$COMP_CWORD" -eq 1 ]; then COMPREPLY=($(compgen -W "${shellWords([...top.keys(), 'help', '--help'])}" -- "$cur")); return 0; fi`,
    '  case "$w1" in',
    `    help) words="${shellWords([...top.keys()])}" ;;`,
    ...cases,
    '  esac',
    '  COMPREPLY=($(compgen -W "$words" -- "$cur"))',
    '  return 0',
    '}',
    'complete -o default -o bashdefault -F _cobro_complete cobro',
    '',
  ].join('\n');
}

/** A zsh single-quoted `name:description` pair for _describe. */
function describeItem(word: string, summary: string): string {
  const q = (s: string) => s.replace(/'/g, `'\\''`);
  return `'${q(word.replace(/:/g, '\\:'))}:${q(summary)}'`;
}

function zsh(top: Map<string, Node>): string {
  const list = (items: readonly string[]) => items.join(' ');
  const leafItems = (n: Node) =>
    list([...n.values.map((v) => describeItem(v, v)), ...n.options.map((o) => describeItem(o, o))]);
  const cases = [...top.values()].map((n) => {
    if (n.children.size === 0) return `    ${n.word}) items=(${leafItems(n)}) ;;`;
    const inner = [...n.children.values()]
      .map((c) => `        ${c.word}) items=(${leafItems(c)}) ;;`)
      .join('\n');
    return [
      `    ${n.word})`,
      `      if (( CURRENT == 3 )); then items=(${list([...n.children.values()].map((c) => describeItem(c.word, c.summary)))}); _describe -t commands 'cobro ${n.word} command' items; return; fi`,
      '      case $words[3] in',
      inner,
      '      esac ;;',
    ].join('\n');
  });
  return [
    '#compdef cobro',
    '# zsh completion for cobro. Save it as _cobro in a directory of $fpath, or load it with: source <(cobro completion zsh)',
    '_cobro() {',
    '  local -a items',
    '  if (( CURRENT == 2 )); then',
    `    items=(${list([...top.values()].map((n) => describeItem(n.word, n.summary)))} 'help:Show help for a command')`,
    "    _describe -t commands 'cobro command' items; return",
    '  fi',
    '  case $words[2] in',
    `    help) items=(${list([...top.values()].map((n) => describeItem(n.word, n.summary)))}) ;;`,
    ...cases,
    '  esac',
    "  if (( ${#items} )); then _describe -t values 'cobro argument' items; else _files; fi",
    '}',
    'if [[ "${funcstack[1]}" == _cobro ]]; then _cobro "$@"; else compdef _cobro cobro; fi',
    '',
  ].join('\n');
}

export function completionScript(
  shell: CompletionShell,
  entries: readonly CompletionEntry[],
): string {
  const top = treeOf(entries);
  return shell === 'bash' ? bash(top) : zsh(top);
}
