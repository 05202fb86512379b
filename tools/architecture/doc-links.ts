/**
 * Repository-path references in prose: every path with a folder and a .ts, .md, .sql or .mjs file named in a
 * comment (.ts, .mjs) or a README (.md) must name a file inside the repository, so the repo stays self-contained.
 * A reference resolves against the naming file's folder, any folder above it, or the root; `./` and `../` paths
 * against the naming file's folder, and never outside the root. URLs are not references. Migrations
 * (clickhouse/migrations/*.sql) are immutable (checksummed) and not checked.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

const SKIP_DIRS = new Set(['node_modules', 'data', 'lib', 'target', '.tmp', '.git']);
/** A path-like reference: at least one folder, a file name, one of the checked extensions. */
const REFERENCE = /(?:\.{1,2}\/)*(?:[A-Za-z0-9_.-]+\/)*[a-z0-9_-]+\/[A-Za-z0-9_.-]+\.(?:ts|md|sql|mjs)\b/g;

export interface DanglingReference {
  /** File (relative to the root) and 1-based line of the reference. */
  readonly file: string;
  readonly line: number;
  readonly reference: string;
}

function sourceFiles(root: string, dir: string, out: string[]): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (!SKIP_DIRS.has(name) && !name.startsWith('.')) sourceFiles(root, path, out);
    } else if (/\.(ts|mjs|md)$/.test(name)) out.push(relative(root, path));
  }
  return out;
}

/** The comments of a TypeScript / JavaScript source, each with its start offset. */
function comments(text: string): { readonly start: number; readonly text: string }[] {
  const out: { start: number; text: string }[] = [];
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.SingleLineCommentTrivia || kind === ts.SyntaxKind.MultiLineCommentTrivia) {
      out.push({ start: scanner.getTokenStart(), text: scanner.getTokenText() });
    }
  }
  return out;
}

/** URLs (http, https, file, ...) blanked out, offsets kept. */
function withoutUrls(text: string): string {
  return text.replace(/[a-z]+:\/\/\S+/g, (url) => ' '.repeat(url.length));
}

function resolves(root: string, file: string, reference: string): boolean {
  if (reference.startsWith('.')) {
    const target = resolve(root, dirname(file), reference);
    return !relative(root, target).startsWith('..') && existsSync(target);
  }
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    if (existsSync(join(root, dir, reference))) return true;
    if (dir === '.' || dir === '' || dir === sep) return false;
  }
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** Every reference in the repository's comments and READMEs that names no file of the repository. */
export function danglingReferences(root: string): DanglingReference[] {
  const out: DanglingReference[] = [];
  for (const file of sourceFiles(root, root, [])) {
    if (file.startsWith(join('clickhouse', 'migrations') + sep)) continue;
    const text = readFileSync(join(root, file), 'utf8');
    const prose = file.endsWith('.md') ? [{ start: 0, text }] : comments(text);
    for (const chunk of prose) {
      for (const m of withoutUrls(chunk.text).matchAll(REFERENCE)) {
        const reference = m[0];
        if (resolves(root, file, reference)) continue;
        out.push({ file, line: lineOf(text, chunk.start + (m.index ?? 0)), reference });
      }
    }
  }
  return out;
}
