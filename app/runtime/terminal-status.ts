import { processMetrics } from '#platform/metrics/registry.ts';
import { logFormat, rootLogger, writeTerminalLine } from '#platform/log.ts';
import type { RuntimeContext } from './context.ts';
import { readStatus, type StatusParts } from './status-metrics.ts';
import { formatStatusLine, statusBetween, type StatusReading } from './status-line.ts';

/** How often a role prints its status line on a terminal. */
export const STATUS_INTERVAL_MS = 10_000;

/** The ready line: what runs, where to reach it, and how to see more than the calm default level. */
export function formatReadyLine(opts: {
  readonly roles: readonly string[];
  readonly apiUrl: string | null;
  readonly metricsUrl: string | null;
  readonly level: string;
  readonly levelIsDefault: boolean;
}): string {
  const parts = [`${opts.roles.join(' + ')} running`];
  if (opts.apiUrl !== null) parts.push(`API ${opts.apiUrl}/v2`);
  if (opts.metricsUrl !== null) parts.push(`metrics ${opts.metricsUrl}`);
  parts.push(`status every ${STATUS_INTERVAL_MS / 1000} s`);
  parts.push(opts.levelIsDefault ? `log level ${opts.level} (LOG_LEVEL=info for more)` : `log level ${opts.level}`);
  return parts.join(' · ');
}

/**
 * On a terminal (readable logs, platform/log.ts), prints a ready line once the roles have started and then a status
 * line every STATUS_INTERVAL_MS from the process's own metrics registry, until the context shuts down. With JSON
 * logs it does nothing. `roles` names the roles this process runs (ingest, processors, query-api).
 */
export function startTerminalStatus(ctx: RuntimeContext, roles: ReadonlySet<string>, apiUrl: string | null): void {
  if (logFormat !== 'pretty') return;
  const parts: StatusParts = { ingest: roles.has('ingest'), snapshots: roles.has('processors'), api: roles.has('query-api') };
  const metricsUrl = ctx.metricsPort > 0 ? `http://${ctx.config.host}:${ctx.metricsPort}/metrics` : null;
  const levelIsDefault = !process.env.LOG_LEVEL;
  writeTerminalLine('READY', formatReadyLine({ roles: [...roles], apiUrl, metricsUrl, level: rootLogger.level, levelIsDefault }));

  let previous: { reading: StatusReading; at: number } | null = null;
  let reading = false;
  const tick = async (): Promise<void> => {
    if (reading) return; // a slow lag look-up (Kafka) still running: skip this tick
    reading = true;
    try {
      const now = { reading: await readStatus(await processMetrics(), parts), at: Date.now() };
      if (previous !== null) {
        const line = formatStatusLine(statusBetween(previous.reading, now.reading, (now.at - previous.at) / 1000, ctx.config.symbols));
        if (line !== '') writeTerminalLine('STATUS', line);
      }
      previous = now;
    } catch (err) {
      ctx.log.debug({ err }, 'status line skipped');
    } finally {
      reading = false;
    }
  };
  void tick(); // the baseline of the first interval's rates
  const timer = setInterval(() => void tick(), STATUS_INTERVAL_MS);
  timer.unref();
  ctx.onShutdown(() => {
    clearInterval(timer);
    return Promise.resolve();
  });
}
