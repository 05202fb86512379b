import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Store } from '#clickhouse/store.ts';
import { loadReferenceFiles, type FileReport, type SourceFile } from './load.ts';

/** The sample files shipped in ingest/reference/fixtures (sources in its README). */
export const BUNDLED_DIR = fileURLToPath(new URL('./fixtures/', import.meta.url));

const read = (name: string): SourceFile => ({ name, text: readFileSync(`${BUNDLED_DIR}${name}`, 'utf8') });

/**
 * Loads the bundled samples (the offline demo does this at start, so every reference route answers):
 * US BTC and ETH ETF flows, the TFF and Legacy COT slices and the synthetic 13F filings of MSTR/COIN/HOOD/IBIT
 * (each primary document before its table). Idempotent: a second call changes nothing.
 */
export async function loadBundledReferenceData(store: Store, progress?: (line: string) => void): Promise<FileReport[]> {
  const files = readdirSync(BUNDLED_DIR).sort();
  const opts = progress === undefined ? {} : { progress };
  const etf = files.filter((f) => f.startsWith('etf_flows_')).map(read);
  const cot = files.filter((f) => f.startsWith('cftc_')).map(read);
  const filings = files.filter((f) => f.startsWith('sec_13f_synthetic_'));
  return [
    ...(await loadReferenceFiles(store, 'etf', etf, opts)),
    ...(await loadReferenceFiles(store, 'cot', cot, opts)),
    ...(await loadReferenceFiles(store, '13f', orderFilings(filings).map(read), opts)),
  ];
}

/** Per filing (manager, quarter): primary document first, then its information table. */
function orderFilings(names: readonly string[]): string[] {
  const stem = (n: string) => n.replace(/_(primary|infotable)\.xml$/, '');
  const stems = [...new Set(names.map(stem))].sort();
  return stems.flatMap((s) => [`${s}_primary.xml`, `${s}_infotable.xml`].filter((n) => names.includes(n)));
}
