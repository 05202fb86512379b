import { readFileSync } from 'node:fs';
import type { CliCommand } from '../command.ts';
import { levelStudy, parseDuration } from '#processors/analytics/level-study.ts';
import { parseLevelsLines } from '#processors/analytics/level-study-input.ts';

const USAGE = 'study levels --levels FILE [--horizon 4h] [--step 30m] [--from ISO] [--to ISO]';

function instant(text: string | undefined, fallback: number): number | null {
  if (text === undefined) return fallback;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : null;
}

/**
 * `gex study levels --levels FILE`: the level study (processors/analytics/level-study.ts) of a file of
 * /v2/gex/levels answers, one per line (e.g. the as_of answers of a window), printed as the `data` study fields of
 * /v2/gex/level-study. `from` and `to` default to the first and last snapshot. No store.
 */
export const studyCommand: CliCommand = {
  name: 'study',
  usage: USAGE,
  summary: 'Print the level study (hold rates vs placebo, RV per regime) of a file of levels answers.',
  async run({ positionals, flags }) {
    const fail = (message: string): number => {
      process.stderr.write(`gex study: ${message}\nusage: gex ${USAGE}\n`);
      return 2;
    };
    if (positionals[0] !== 'levels') return fail(`unknown study '${positionals[0] ?? ''}' (levels is the one study)`);
    const path = flags.get('levels');
    if (path === undefined || path === 'true') return fail('--levels FILE is required');
    const horizonMs = parseDuration(flags.get('horizon') ?? '4h');
    const stepMs = parseDuration(flags.get('step') ?? '30m');
    if (horizonMs === null) return fail(`--horizon must look like 30m, 4h or 1d, got '${flags.get('horizon') ?? ''}'`);
    if (stepMs === null) return fail(`--step must look like 5m, 30m or 1h, got '${flags.get('step') ?? ''}'`);
    let snaps;
    try {
      snaps = parseLevelsLines(readFileSync(path, 'utf8'));
    } catch (err) {
      return fail(`${path}: ${(err as Error).message}`);
    }
    const from = instant(flags.get('from'), snaps[0]?.t ?? 0);
    const to = instant(flags.get('to'), snaps.at(-1)?.t ?? 0);
    if (from === null || to === null) return fail('--from and --to are ISO-8601 instants');
    process.stdout.write(`${JSON.stringify(levelStudy(snaps, { from, to, horizonMs, stepMs }), null, 2)}\n`);
    return 0;
  },
};
