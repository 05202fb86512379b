/**
 * Functions longer than a limit (default 120 lines, the project's rule), over the TypeScript sources of the
 * repository, test files (`*.test.ts`) excluded. A function's length runs from its first to its last line, nested
 * functions included. `node --import tsx tools/architecture/function-lengths.ts [limit] [folder...]` prints them,
 * longest first.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { typeScriptSources } from './source-files.ts';

export interface LongFunction {
  /** File relative to the root, 1-based first line, name (or how the anonymous function is used), lines. */
  readonly file: string;
  readonly line: number;
  readonly name: string;
  readonly lines: number;
}

function nameOf(node: ts.SignatureDeclaration, sf: ts.SourceFile): string {
  if (node.name) return node.name.getText(sf);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText(sf);
  if (ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText(sf).slice(0, 40)})`;
  return '(anonymous)';
}

/** Every function-like body in `folders` (under `root`) longer than `limit` lines, longest first. */
export function longFunctions(root: string, limit = 120, folders: readonly string[] = ['.']): LongFunction[] {
  const out: LongFunction[] = [];
  for (const file of folders.flatMap((f) => typeScriptSources(join(root, f)))) {
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
        const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
        const lines = sf.getLineAndCharacterOfPosition(node.end).line - first + 1;
        if (lines > limit) out.push({ file: relative(root, file), line: first + 1, name: nameOf(node, sf), lines });
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return out.sort((a, b) => b.lines - a.lines);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const [limit, ...folders] = process.argv.slice(2);
  for (const f of longFunctions(root, limit ? Number(limit) : 120, folders.length > 0 ? folders : ['.']))
    console.log(`${f.lines}\t${f.file}:${f.line}\t${f.name}`);
}
