import { readFile } from 'node:fs/promises';
import type { CliCommand } from '../command.ts';
import { openStore } from '../../runtime/open-store.ts';
import { migrate } from '#clickhouse/migrate.ts';
import { loadReferenceFiles, type LoadOptions, type ReferenceKind, type SourceFile } from '#ingest/reference/load.ts';
import type { CotReport } from '#ingest/reference/cot.ts';
import { ETF_ASSETS, ETF_REGIONS, type EtfAsset, type EtfRegion } from '#ingest/reference/targets.ts';

const KINDS: readonly ReferenceKind[] = ['etf', 'cot', '13f'];
const COT_REPORTS: readonly CotReport[] = ['tff', 'legacy', 'disaggregated'];

/** Options from flags, or the reason they are invalid. */
function loadOptions(flags: ReadonlyMap<string, string>): Omit<LoadOptions, 'progress'> | string {
  const region = flags.get('region');
  const asset = flags.get('asset')?.toUpperCase();
  const variant = flags.get('variant');
  const report = flags.get('report');
  if ((region === undefined) !== (asset === undefined)) return '--region and --asset go together';
  if (region !== undefined && !(ETF_REGIONS as readonly string[]).includes(region))
    return `--region must be one of ${ETF_REGIONS.join(', ')}`;
  if (asset !== undefined && !(ETF_ASSETS as readonly string[]).includes(asset)) return `--asset must be one of ${ETF_ASSETS.join(', ')}`;
  if (variant !== undefined && variant !== 'futures_only' && variant !== 'combined') return '--variant must be futures_only or combined';
  if (report !== undefined && !(COT_REPORTS as readonly string[]).includes(report))
    return `--report must be one of ${COT_REPORTS.join(', ')}`;
  return {
    ...(region !== undefined && asset !== undefined ? { etfTarget: { region: region as EtfRegion, asset: asset as EtfAsset } } : {}),
    ...(variant !== undefined ? { cotVariant: variant } : {}),
    ...(report !== undefined ? { cotReport: report as CotReport } : {}),
  };
}

export async function readSources(paths: readonly string[]): Promise<SourceFile[]> {
  return Promise.all(
    paths.map(async (name) => {
      const bytes = await readFile(name);
      return { name, text: bytes.toString('utf8'), bytes };
    }),
  );
}

/**
 * `gex load etf|cot|13f FILE…`: the batch loader role. Parses and validates every row, writes to ClickHouse
 * (migrations applied first); progress and refused rows (file:line: reason) on stderr, one summary line per
 * file on stdout. Exit 1 when any file was refused (the others are loaded), 2 on usage errors.
 */
export const loadCommand: CliCommand = {
  name: 'load',
  usage:
    'load etf|cot|13f FILE… [--region us|hk --asset BTC|ETH|SOL|XRP] [--variant futures_only|combined] [--report tff|legacy|disaggregated]',
  summary: 'Load reference files (ETF flows, CFTC COT, SEC 13F primary doc + information table) into ClickHouse.',
  async run({ config, positionals, flags }) {
    const [kind, ...paths] = positionals;
    if (kind === undefined || !(KINDS as readonly string[]).includes(kind) || paths.length === 0) {
      process.stderr.write(`gex load: usage: gex ${this.usage}\n`);
      return 2;
    }
    const opts = loadOptions(flags);
    if (typeof opts === 'string') {
      process.stderr.write(`gex load: ${opts}\n`);
      return 2;
    }
    let files: SourceFile[];
    try {
      files = await readSources(paths);
    } catch (err) {
      process.stderr.write(`gex load: ${(err as Error).message}\n`);
      return 2;
    }
    const store = await openStore(config);
    try {
      await migrate(store);
      const reports = await loadReferenceFiles(store, kind as ReferenceKind, files, {
        ...opts,
        progress: (l) => process.stderr.write(`${l}\n`),
      });
      let refused = 0;
      for (const r of reports) {
        for (const e of r.errors) process.stderr.write(`${e.file}:${e.line}: ${e.message}\n`);
        for (const s of r.skipped) process.stderr.write(`${s.file}:${s.line}: skipped: ${s.reason}\n`);
        if (r.errors.length > 0) refused++;
        process.stdout.write(
          `${r.file}: ${r.errors.length > 0 ? `refused (${r.errors.length} invalid rows)` : `${r.written} written, ${r.skipped.length} skipped`}\n`,
        );
      }
      return refused > 0 ? 1 : 0;
    } finally {
      await store.close();
    }
  },
};
