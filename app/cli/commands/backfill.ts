import { resolve } from 'node:path';
import type { CliCommand } from '../command.ts';
import { openStore } from '../../runtime/open-store.ts';
import { migrate } from '#clickhouse/migrate.ts';
import { StoreError, type Store } from '#clickhouse/store.ts';
import { createProgress } from '#sandbox/history/progress.ts';
import { rebuildMarketMinutes } from '#clickhouse/market-rebuild.ts';
import { runBackfill } from '../../runtime/backfill.ts';
import { SANDBOX_VENUES, type SandboxVenue } from '#sandbox/market/venues.ts';

const DAY_MS = 86_400_000;

function intFlag(flags: ReadonlyMap<string, string>, name: string, dflt: number | null, min: number, max: number): number | string {
  const raw = flags.get(name);
  if (raw === undefined) return dflt ?? `--${name} N is required`;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max)
    return `--${name} must be an integer from ${min} to ${max}, got '${raw}'`;
  return Number(raw);
}

async function open(config: Parameters<typeof openStore>[0]): Promise<Store | string> {
  try {
    return await openStore(config);
  } catch (err) {
    if (err instanceof StoreError && err.op === 'connect' && config.clickhouseUrl === undefined) {
      return (
        `the embedded store at ${resolve(config.dataDir, 'clickhouse')} cannot be opened (${err.message}).\n` +
        'It is locked while the product runs (gex demo / all / process / api): stop it and run the backfill first, or use CLICKHOUSE_URL.'
      );
    }
    throw err;
  }
}

/**
 * `gex backfill --sandbox --days N [--symbols S,...] [--model fast|full] [--trades-per-minute N]`: fills the last
 * N days (up to now, whole minutes) with sandbox history through the product's pipeline (model -> encode -> bus
 * -> raw writer -> raw tables -> materialized views, which fill the 1-minute, hourly and daily market states).
 * `--rebuild`: recompute the 1-minute market states of the last N days from the raw tables (FINAL) instead, and
 * re-derive the hourly and daily states of those hours and days.
 */
export const backfillCommand: CliCommand = {
  name: 'backfill',
  usage: 'backfill --sandbox --days N [--symbols S,..] [--model fast|full] [--trades-per-minute N] [--rebuild]',
  summary:
    'Fill market history from the sandbox market through the pipeline (or --rebuild the 1m market states, their 1h/1d roll-ups and the option tape minutes).',
  async run({ config, flags }) {
    const days = intFlag(flags, 'days', null, 1, 400);
    const tpm = intFlag(flags, 'trades-per-minute', 2, 1, 600);
    const model = flags.get('model') ?? 'fast';
    const rebuild = flags.get('rebuild') === 'true';
    const problems = [days, tpm].filter((x): x is string => typeof x === 'string');
    if (model !== 'fast' && model !== 'full') problems.push(`--model must be fast or full, got '${model}'`);
    if (!rebuild && !config.sandbox) problems.push('--sandbox is required: the sandbox market is the only history source');
    if (problems.length > 0 || typeof days !== 'number' || typeof tpm !== 'number') {
      process.stderr.write(`gex backfill: ${problems.join('\n  ')}\nusage: gex ${backfillCommand.usage}\n`);
      return 2;
    }
    const store = await open(config);
    if (typeof store === 'string') {
      process.stderr.write(`gex backfill: ${store}\n`);
      return 1;
    }
    try {
      await migrate(store);
      const toMs = Math.floor(Date.now() / 60_000) * 60_000;
      const fromMs = toMs - days * DAY_MS;
      if (rebuild) {
        await rebuildMarketMinutes(store, fromMs, toMs);
        process.stderr.write(
          `rebuilt the 1-minute market states (and their hourly/daily roll-ups) of ${new Date(fromMs).toISOString()} .. ${new Date(toMs).toISOString()}\n`,
        );
        return 0;
      }
      process.stderr.write(
        `backfill: ${days} day(s) of ${config.symbols.join(',')} on ` +
          `${config.venues.join(',')} (${model} model${model === 'fast' ? `, ${tpm} trades/min per venue book` : ''}, seed ${config.sandboxSeed}) into ${store.kind === 'embedded' ? resolve(config.dataDir, 'clickhouse') : config.clickhouseUrl}\n`,
      );
      // The venues the product connects to (VENUES / --venues) that the sandbox simulates.
      const venues = config.venues.filter((v): v is SandboxVenue => (SANDBOX_VENUES as readonly string[]).includes(v));
      const progress = createProgress();
      let last = { doneMs: 0, totalMs: toMs - fromMs, published: 0, stored: 0, atMs: fromMs };
      const r = await runBackfill({
        store,
        symbols: config.symbols,
        venues,
        fromMs,
        toMs,
        model: model === 'full' ? 'full' : 'fast',
        seed: config.sandboxSeed,
        tradesPerMinute: tpm,
        partitions: config.topicPartitions,
        onProgress: (s) => {
          last = s;
          progress.update(s);
        },
      });
      progress.done({ ...last, doneMs: last.totalMs, published: r.published, stored: r.stored });
      if (r.skipped > 0) process.stderr.write(`skipped ${r.skipped} events in minutes that already held data\n`);
      return 0;
    } finally {
      await store.close();
    }
  },
};
