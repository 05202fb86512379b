/**
 * Just enough XML for the SEC 13F documents (flat, element-only records): elements found by local name, so a
 * default namespace (`<infoTable>`) and a prefixed one (`<ns1:infoTable>`) read the same. Pure.
 */

export interface XmlElement {
  /** Inner text of the element (children included, undecoded). */
  readonly inner: string;
  /** 1-based line of the opening tag in the document. */
  readonly line: number;
}

const NAME = '(?:[A-Za-z_][\\w.-]*:)?';

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-z]+);/g, (whole, ent: string) => {
    if (ent.startsWith('#x')) return String.fromCodePoint(parseInt(ent.slice(2), 16));
    if (ent.startsWith('#')) return String.fromCodePoint(Number(ent.slice(1)));
    return ENTITIES[ent] ?? whole;
  });
}

/** Every element with this local name (not nested in itself), with its line. */
export function elements(xml: string, localName: string): XmlElement[] {
  const re = new RegExp(`<${NAME}${localName}(?:\\s[^>]*)?>([\\s\\S]*?)</${NAME}${localName}\\s*>`, 'g');
  const out: XmlElement[] = [];
  let line = 1;
  let from = 0;
  for (const m of xml.matchAll(re)) {
    for (let i = from; i < m.index; i++) if (xml.charCodeAt(i) === 10) line++;
    from = m.index;
    out.push({ inner: m[1] ?? '', line });
  }
  return out;
}

/** Decoded, trimmed text of the first child element with this local name; undefined when absent. */
export function childText(xml: string, localName: string): string | undefined {
  const re = new RegExp(`<${NAME}${localName}(?:\\s[^>]*)?(?:/>|>([\\s\\S]*?)</${NAME}${localName}\\s*>)`);
  const m = re.exec(xml);
  if (m === null) return undefined;
  return decodeEntities((m[1] ?? '').replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, '$1')).trim();
}
