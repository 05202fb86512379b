/**
 * Builds the explorer's browser bundle from source with esbuild, in memory: app.js (ESM, minified, uPlot
 * inlined) and app.css (uPlot's stylesheet + ours), plus index.html. Nothing is committed or written to disk, so
 * the page served is always the source in this checkout; the build takes ~100 ms and runs once per process.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export interface ExplorerBundle {
  readonly html: string;
  readonly js: string;
  readonly css: string;
  readonly buildMs: number;
}

const WEB_DIR = fileURLToPath(new URL('./web/', import.meta.url));

export async function buildExplorer(): Promise<ExplorerBundle> {
  const started = performance.now();
  const result = await build({
    entryPoints: [`${WEB_DIR}main.ts`],
    bundle: true,
    write: false,
    outdir: 'out',
    entryNames: 'app',
    format: 'esm',
    platform: 'browser',
    target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const pick = (ext: string): string => {
    const f = result.outputFiles.find((o) => o.path.endsWith(ext));
    if (f === undefined) throw new Error(`explorer bundle: no ${ext} output`);
    return f.text;
  };
  const html = await readFile(`${WEB_DIR}index.html`, 'utf8');
  return { html, js: pick('.js'), css: pick('.css'), buildMs: performance.now() - started };
}
