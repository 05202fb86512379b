/**
 * Lines wider than the formatter's width (.prettierrc.json printWidth) in the TypeScript sources, tests excluded,
 * that are not wide only because of a literal the formatter cannot split: the characters of string, template and
 * regular-expression literals (found by the TypeScript parser) do not count. Comments count in full (wrap them).
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import ts from 'typescript';
import { typeScriptSources } from './source-files.ts';

export interface WideLine {
  readonly file: string;
  readonly line: number;
  readonly width: number;
}

const LITERAL_KINDS = new Set([
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral,
  ts.SyntaxKind.TemplateHead,
  ts.SyntaxKind.TemplateMiddle,
  ts.SyntaxKind.TemplateTail,
  ts.SyntaxKind.RegularExpressionLiteral,
]);

/** Per line of `text`, its width not counting the characters inside literals. */
export function widthsWithoutLiterals(text: string): number[] {
  const source = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const inLiteral = new Uint8Array(text.length);
  const visit = (node: ts.Node): void => {
    if (LITERAL_KINDS.has(node.kind)) inLiteral.fill(1, node.getStart(source), node.getEnd());
    node.forEachChild(visit);
  };
  visit(source);
  const widths: number[] = [];
  let width = 0;
  for (let i = 0; i <= text.length; i++) {
    if (i === text.length || text[i] === '\n') {
      widths.push(width);
      width = 0;
    } else if (inLiteral[i] === 0) width++;
  }
  return widths;
}

export function wideLines(root: string, width: number): WideLine[] {
  const found: WideLine[] = [];
  for (const path of typeScriptSources(root)) {
    const text = readFileSync(path, 'utf8');
    const full = text.split('\n');
    widthsWithoutLiterals(text).forEach((w, i) => {
      const length = full[i]?.length ?? 0;
      if (length > width && w > width) found.push({ file: relative(root, path), line: i + 1, width: length });
    });
  }
  return found;
}
