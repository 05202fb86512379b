/**
 * README sections generated from the code that declares them, between `<!-- NAME:begin -->` and
 * `<!-- NAME:end -->` markers. `npm run docs` rewrites them; tools/docs/generated-sections.test.ts fails when a
 * README differs from what the code declares.
 */
import { settingsMarkdown } from '#platform/settings.ts';

export interface GeneratedSection {
  /** README path relative to the repository root. */
  readonly file: string;
  readonly name: string;
  render(): string;
}

export const GENERATED_SECTIONS: readonly GeneratedSection[] = [{ file: 'README.md', name: 'settings', render: settingsMarkdown }];

function markers(name: string): { begin: string; end: string } {
  return { begin: `<!-- ${name}:begin -->`, end: `<!-- ${name}:end -->` };
}

/** The text between the markers of `name` (without the newlines next to them), or null when a marker is missing. */
export function sectionOf(text: string, name: string): string | null {
  const { begin, end } = markers(name);
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from < 0 || to < from) return null;
  return text
    .slice(from + begin.length, to)
    .replace(/^\n/, '')
    .replace(/\n$/, '');
}

/** `text` with the section `name` replaced by `body`; throws when a marker is missing. */
export function withSection(text: string, name: string, body: string): string {
  const { begin, end } = markers(name);
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`no ${begin} ... ${end} markers`);
  return `${text.slice(0, from + begin.length)}\n${body}\n${text.slice(to)}`;
}
