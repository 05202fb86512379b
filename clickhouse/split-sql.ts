/**
 * Splits a SQL script into statements on `;` outside string literals, quoted identifiers and comments.
 * Comments (`-- …` to end of line, `/* … *\/`) are dropped; blank statements are skipped. Quotes may be
 * escaped by doubling (`''`) or with a backslash (`\'`), as ClickHouse accepts both.
 */
export function splitSqlStatements(script: string): string[] {
  const out: string[] = [];
  let current = '';
  let i = 0;
  const n = script.length;
  const push = (): void => {
    const s = current.trim();
    if (s !== '') out.push(s);
    current = '';
  };
  while (i < n) {
    const c = script[i] ?? '';
    const next = script[i + 1] ?? '';
    if (c === '-' && next === '-') {
      const eol = script.indexOf('\n', i);
      i = eol === -1 ? n : eol; // keep the newline as a separator
      continue;
    }
    if (c === '/' && next === '*') {
      const close = script.indexOf('*/', i + 2);
      if (close === -1) throw new SyntaxError(`unterminated /* comment at offset ${i}`);
      current += ' ';
      i = close + 2;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') {
      const start = i;
      i++;
      for (;;) {
        if (i >= n) throw new SyntaxError(`unterminated ${c} literal at offset ${start}`);
        const d = script[i];
        if (d === '\\') {
          i += 2;
          continue;
        }
        if (d === c) {
          if (script[i + 1] === c) {
            i += 2;
            continue;
          }
          i++;
          break;
        }
        i++;
      }
      current += script.slice(start, i);
      continue;
    }
    if (c === ';') {
      push();
      i++;
      continue;
    }
    current += c;
    i++;
  }
  push();
  return out;
}
