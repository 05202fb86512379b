// `npm run docs`: rewrites every generated README section (tools/docs/generated-sections.ts) from the code.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { GENERATED_SECTIONS, withSection } from './generated-sections.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
for (const section of GENERATED_SECTIONS) {
  const path = `${root}${section.file}`;
  const before = readFileSync(path, 'utf8');
  const after = withSection(before, section.name, section.render());
  if (after !== before) writeFileSync(path, after);
  process.stdout.write(`${section.file} ${section.name}: ${after === before ? 'unchanged' : 'rewritten'}\n`);
}
