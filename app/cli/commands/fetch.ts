import { readFile } from 'node:fs/promises';
import type { CliCommand } from '../command.ts';
import { createRuntimeContext } from '../../runtime/context.ts';
import { untilSignal } from '../../runtime/signals.ts';
import { sourcesSchema, startReferenceFetcher, type FetchSource } from '#ingest/reference/fetcher.ts';

/**
 * `gex fetch --sources FILE`: the scheduled fetcher role. Pulls each source of FILE (JSON, see
 * ops/reference-sources.example.json) at start and on its publication schedule, and loads it like
 * `gex load`. Not part of the offline demo (no network there). Runs until SIGINT/SIGTERM.
 */
export const fetchCommand: CliCommand = {
  name: 'fetch',
  usage: 'fetch --sources FILE',
  summary: 'Scheduled fetcher of the reference files (ETF flows, CFTC COT, SEC 13F) from their URLs into ClickHouse.',
  async run({ config, flags }) {
    const file = flags.get('sources');
    if (file === undefined || file === 'true') {
      process.stderr.write('gex fetch: --sources FILE is required\n');
      return 2;
    }
    let sources: FetchSource[];
    try {
      const parsed = sourcesSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
      if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
      sources = parsed.data;
    } catch (err) {
      process.stderr.write(`gex fetch: invalid sources file ${file}: ${(err as Error).message}\n`);
      return 2;
    }
    const ctx = await createRuntimeContext(config);
    const role = startReferenceFetcher({
      store: ctx.store,
      sources,
      log: (o) => {
        const fields = { source: o.source, status: o.status, written: o.reports.reduce((n, r) => n + r.written, 0), error: o.error };
        if (o.status === 'failed') ctx.log.warn(fields, 'reference fetch failed; retried at the next scheduled run');
        else ctx.log.info(fields, 'reference fetch');
      },
    });
    ctx.onShutdown(() => role.stop());
    return untilSignal(ctx);
  },
};
