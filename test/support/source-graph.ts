// Reads src/ with the TypeScript compiler's parser (no type checking): the import graph and the length of every
// function, for the tidy test's import rules and function-length ratchet.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface ImportEdge {
  readonly from: string;
  readonly to: string;
  /** `import type` / `export type ... from`: erased at run time, so it cannot make a module wait on another. */
  readonly typeOnly: boolean;
}

export interface FunctionSpan {
  readonly file: string;
  readonly name: string;
  readonly line: number;
  readonly lines: number;
}

export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(full));
    else if (entry.name.endsWith('.ts')) out.push(full);
  }
  return out.sort();
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
}

/** Every relative import and re-export of `files`, resolved to absolute paths. */
export function importEdges(files: readonly string[]): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of files) {
    const source = parse(file);
    for (const statement of source.statements) {
      let specifier: ts.Expression | undefined;
      let typeOnly = false;
      if (ts.isImportDeclaration(statement)) {
        specifier = statement.moduleSpecifier;
        const clause = statement.importClause;
        typeOnly =
          clause !== undefined &&
          (clause.isTypeOnly ||
            (clause.name === undefined &&
              clause.namedBindings !== undefined &&
              ts.isNamedImports(clause.namedBindings) &&
              clause.namedBindings.elements.length > 0 &&
              clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier !== undefined) {
        specifier = statement.moduleSpecifier;
        typeOnly = statement.isTypeOnly;
      }
      if (
        specifier === undefined ||
        !ts.isStringLiteral(specifier) ||
        !specifier.text.startsWith('.')
      )
        continue;
      edges.push({ from: file, to: path.resolve(path.dirname(file), specifier.text), typeOnly });
    }
  }
  return edges;
}

/** Each strongly connected component of more than one file (or a file importing itself): the import cycles. */
export function importCycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  // Tarjan's algorithm, iterative-free recursion is fine at this size (a few hundred files).
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    indexOf.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
      }
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (next.get(v) ?? []).includes(v)) cycles.push(component.sort());
    }
  };
  for (const v of next.keys()) if (!indexOf.has(v)) visit(v);
  return cycles;
}

function functionName(node: ts.Node): string {
  if (
    (ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isFunctionExpression(node)) &&
    node.name !== undefined
  ) {
    return node.name.getText();
  }
  const parent = node.parent;
  if (
    ts.isVariableDeclaration(parent) ||
    ts.isPropertyAssignment(parent) ||
    ts.isPropertyDeclaration(parent)
  )
    return parent.name.getText();
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  return '(anonymous)';
}

/** Every function-like node with a body, with the number of lines from its first to its last line. */
export function functionSpans(files: readonly string[]): FunctionSpan[] {
  const spans: FunctionSpan[] = [];
  for (const file of files) {
    const source = parse(file);
    const walk = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        spans.push({ file, name: functionName(node), line: start + 1, lines: end - start + 1 });
      }
      ts.forEachChild(node, walk);
    };
    walk(source);
  }
  return spans.sort((a, b) => b.lines - a.lines);
}

/** Statements at the top level of a file that call something: side effects of importing it. */
export function topLevelCalls(
  files: readonly string[],
): { file: string; line: number; text: string }[] {
  const calls: { file: string; line: number; text: string }[] = [];
  for (const file of files) {
    const source = parse(file);
    for (const statement of source.statements) {
      if (!ts.isExpressionStatement(statement)) continue;
      let expression: ts.Expression = statement.expression;
      while (ts.isAwaitExpression(expression) || ts.isVoidExpression(expression))
        expression = expression.expression;
      if (!ts.isCallExpression(expression)) continue;
      const line = source.getLineAndCharacterOfPosition(statement.getStart(source)).line + 1;
      calls.push({ file, line, text: statement.getText(source).split('\n')[0]!.slice(0, 80) });
    }
  }
  return calls;
}
