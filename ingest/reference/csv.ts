/** One CSV record split into fields: double-quoted fields may hold commas; "" inside quotes is a quote. */
export function splitCsvLine(line: string): string[] {
  const out: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      out.push(field);
      field = '';
    } else field += ch;
  }
  out.push(field);
  return out;
}

/** Lines of a text file without the trailing CR of CRLF files; a BOM is dropped. */
export function textLines(text: string): string[] {
  return text
    .replace(/^\uFEFF/, '')
    .split('\n')
    .map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}
