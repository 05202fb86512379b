import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { CliCommand } from '../command.ts';
import type { Store } from '#clickhouse/store.ts';
import { openStore } from '../../runtime/open-store.ts';
import { parseReplayRequest } from '#query-api/replay/request.ts';
import { replayLines } from '#query-api/replay/stream.ts';

const USAGE = 'replay CHANNELS --from ISO --to ISO [--url URL --key KEY]';

/** Writes a chunk, waiting for the stream to drain when its buffer is full (bounded memory whatever the window). */
async function write(out: Writable, chunk: string | Uint8Array): Promise<void> {
  if (!out.write(chunk)) await once(out, 'drain');
}

/** The NDJSON of GET /v2/replay from a running API, streamed to `out`; an error answer → its message and exit code 1. */
async function fromApi(out: Writable, base: string, key: string | undefined, query: URLSearchParams): Promise<number> {
  const url = new URL(`/v2/replay?${query.toString()}`, base);
  let res: Response;
  try {
    res = await fetch(url, { headers: key === undefined ? {} : { 'x-api-key': key } });
  } catch (err) {
    process.stderr.write(`gex replay: cannot reach ${url.origin}: ${(err as Error).message}\n`);
    return 1;
  }
  if (res.status !== 200 || res.body === null) {
    process.stderr.write(`gex replay: ${res.status} ${(await res.text()).slice(0, 2_000)}\n`);
    return 1;
  }
  for await (const chunk of res.body) await write(out, chunk);
  return 0;
}

/**
 * `gex replay CHANNELS --from ISO --to ISO`: the replay stream of GET /v2/replay (query-api/replay/) written to stdout
 * as NDJSON, for scripted backtests. With `--url URL [--key KEY]`: streamed from that running API (its plan window
 * applies). Otherwise: read straight from the store (CLICKHOUSE_URL, else DATA_DIR, e.g. `--data-dir DIR`) with the
 * same replay core, no plan window; the same window gives the same bytes either way (the API's done line adds
 * `history_clamp` only when the key's plan cut the window).
 */
export const replayCommand: CliCommand = {
  name: 'replay',
  usage: USAGE,
  summary: 'Write the replay of feed channels over a window (NDJSON, as GET /v2/replay) from a running API (--url) or the store.',
  async run({ config, positionals, flags }) {
    const fail = (message: string): number => {
      process.stderr.write(`gex replay: ${message}\nusage: gex ${USAGE}\n`);
      return 2;
    };
    const q = { channels: positionals.join(','), from: flags.get('from') ?? '', to: flags.get('to') ?? '' };
    const url = flags.get('url');
    if (url !== undefined) {
      if (!URL.canParse(url)) return fail(`--url must be a URL such as http://localhost:8080, got '${url}'`);
      return fromApi(process.stdout, url, flags.get('key'), new URLSearchParams(q));
    }
    const parsed = parseReplayRequest(q, Date.now());
    if (!parsed.ok) return fail(parsed.problems.map((p) => `${p.name}: ${p.message} (got '${p.received}')`).join('\n  '));
    let store: Store;
    try {
      store = await openStore(config);
    } catch (err) {
      process.stderr.write(
        `gex replay: cannot open the store (${(err as Error).message}); while a gex process holds DATA_DIR, replay through its API with --url\n`,
      );
      return 1;
    }
    try {
      for await (const line of replayLines(store, parsed.request)) await write(process.stdout, line);
      return 0;
    } finally {
      await store.close();
    }
  },
};
