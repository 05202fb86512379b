/**
 * GET /v2/replay: the stored history of feed channels over a window as NDJSON (replay/stream.ts), streamed with
 * backpressure (a batch of lines is made only when the socket has taken the previous ones), gzip when the client accepts
 * it. The batches come from the app's replay producer (`ctx.replays`: the replay thread by default) and are written to
 * the response by write-chunks.ts, each in the encoding of its text.
 */
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { ServerResponse } from 'node:http';
import type { Level } from '../accounts/plans.ts';
import { z } from 'zod';
import { randomUUID } from 'node:crypto';
import { ApiError, validationError } from '../envelope/errors.ts';
import { errorResponses } from '../envelope/envelope-schemas.ts';
import { clampWindow, type HistoryClamp } from '../limits/history-clamp.ts';
import type { ApiInstance, AppContext } from '../types.ts';
import { REPLAY_CAPS, REPLAY_TURNS } from './caps.ts';
import { replayMetrics } from './metrics.ts';
import type { ReplayBatch } from './batch.ts';
import { doneLine } from './lines.ts';
import { MAX_REPLAY_CHANNELS, parseReplayRequest, type ReplayRequest } from './request.ts';
import { writeChunks, type ChunkDestination, type TextChunk } from './write-chunks.ts';

export const TAG = 'replay';
export const NDJSON = 'application/x-ndjson';

export const replayQuery = z.object({
  channels: z
    .string()
    .max(2_000)
    .describe(
      `comma-separated feed channels (1 to ${MAX_REPLAY_CHANNELS}): tape.{symbol}, levels.{symbol}[.{venue,...}], chain.{symbol}[.{venue,...}]`,
    ),
  from: z.string().max(64).describe('start of the window, inclusive: ISO-8601 instant or epoch ms'),
  to: z.string().max(64).describe('end of the window, inclusive, after `from`, not in the future: ISO-8601 instant or epoch ms'),
});

const ndjson = {
  description: 'NDJSON stream: one message per line, then the replay_done line',
  content: { [NDJSON]: { schema: z.string().describe('NDJSON lines') } },
};

const acceptsGzip = (header: string | string[] | undefined): boolean =>
  (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').some((p) => {
    const [coding, ...params] = p.trim().toLowerCase().split(';');
    return coding === 'gzip' && !params.some((x) => /^\s*q=0(\.0*)?\s*$/.test(x));
  });

/**
 * Counts the replay against the user's concurrent replays (REPLAY_CAPS, shared with the WebSocket method) until the
 * response ends; over the cap: 429.
 */
async function admit(ctx: AppContext, userId: string | undefined, level: Level | undefined, reply: { raw: ServerResponse }): Promise<void> {
  if (userId === undefined || level === undefined) return;
  const id = randomUUID();
  const admission = await ctx.replayCap.acquire(userId, id, REPLAY_CAPS[level]);
  if (!admission.allowed) {
    replayMetrics.ended.inc({ transport: 'http', status: 'refused' });
    throw new ApiError(
      'RATE_LIMIT_EXCEEDED',
      `concurrent replay limit reached (${admission.limit} for level ${level}${admission.fallback ? ', per-machine fallback' : ''})`,
      { limit: 'concurrent_replays', max: admission.limit, count: admission.count },
      { 'retry-after': '5' },
    );
  }
  reply.raw.once('close', () => ctx.replayCap.release(id));
}

/**
 * The NDJSON body: each batch's lines as they are (made by the replay producer), then the `replay_done` line; counted
 * in the replay metrics: `completed` when the done line was produced, else `stopped` or `failed`.
 */
async function* ndjsonBody(
  batches: AsyncGenerator<ReplayBatch>,
  request: ReplayRequest,
  clamp: HistoryClamp | undefined,
): AsyncGenerator<TextChunk> {
  replayMetrics.active.inc({ transport: 'http' });
  let status: 'completed' | 'stopped' | 'failed' = 'stopped';
  const names = request.channels.map((c) => c.name);
  const counts = new Map<string, number>(names.map((n) => [n, 0]));
  const owner = {};
  try {
    for await (const b of batches) {
      for (let i = 0; i < b.count; i++) counts.set(names[b.channel[i] as number] as string, b.seq[i] as number);
      replayMetrics.messages.inc({ transport: 'http' }, b.count);
      // Written within the replays' share of the event-loop turn (REPLAY_TURNS).
      await REPLAY_TURNS.pass(owner, b.text.length);
      // One character a byte (batch.ts): written as latin1, the line's UTF-8 bytes as they are.
      yield { text: b.text, encoding: 'latin1' };
    }
    yield { text: doneLine(request.fromMs, request.toMs, counts, clamp), encoding: 'utf8' };
    status = 'completed';
  } catch (err) {
    status = 'failed';
    throw err;
  } finally {
    replayMetrics.active.dec({ transport: 'http' });
    replayMetrics.ended.inc({ transport: 'http', status });
  }
}

/** `first` (already taken from `rest`), then the rest. */
async function* prepend<T>(first: IteratorResult<T>, rest: AsyncGenerator<T>): AsyncGenerator<T> {
  try {
    if (first.done === true) return;
    yield first.value;
    yield* rest;
  } finally {
    // Ended early (the client went away): `rest` ends too, wherever this stopped.
    await rest.return(undefined);
  }
}

export async function replayRoute(app: ApiInstance, ctx: AppContext): Promise<void> {
  app.get('/v2/replay', {
    schema: {
      tags: [TAG],
      summary: 'Replay of feed channels',
      description:
        'The stored history of WebSocket feed channels over a window, merged in time order, as NDJSON: one `{"channel","at","seq","data"}` line per message (`data` as the live channel sends it; `at` the instant it represents), ordered by instant, then channel name, then the channel\'s own order; a last `{"type":"replay_done","from","to","counts"}` line. Levels: every stored snapshot; tape: the stored trades in /v2/tape ascending order; chain: a `snapshot` then `changes` per stored 30 s chain (3 days kept). The window is clamped to the plan\'s history window. A replay counts against the plan\'s concurrent replays (with the WebSocket method `public/replay`; /v2/meta `websocket.replay`): over the cap, 429 with Retry-After. Gzip with `Accept-Encoding: gzip`.',
      querystring: replayQuery,
      response: { 200: ndjson, ...errorResponses({ auth: true }) },
    },
    handler: async (request, reply) => {
      const parsed = parseReplayRequest(request.query, ctx.clock());
      if (!parsed.ok) throw validationError(parsed.problems.map((p) => ({ ...p, location: 'query' })));
      const clamp = clampWindow({ from: parsed.request.fromMs, to: parsed.request.toMs }, ctx.historyPolicy(request));
      const served = { ...parsed.request, fromMs: clamp.served.from, toMs: clamp.served.to };
      await admit(ctx, request.account?.userId, request.entitlement?.level, reply);
      const body = ndjsonBody(ctx.replays.batches(served, 'ndjson'), served, clamp.clamp ?? undefined);
      // The first chunk is made before anything is sent: a failure there (the store down) is answered as on any route
      // (a generator that threw has run its `finally` and is done).
      const first = await body.next();
      const gzip = acceptsGzip(request.headers['accept-encoding']);
      reply.header('content-type', `${NDJSON}; charset=utf-8`).header('vary', 'accept-encoding');
      if (gzip) reply.header('content-encoding', 'gzip');
      // From here the body is written by writeChunks; Fastify still runs the onResponse hooks when the response ends.
      reply.hijack();
      const res = reply.raw;
      for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) res.setHeader(name, value);
      res.writeHead(200);
      let out: ChunkDestination = res;
      if (gzip) {
        const zip = createGzip();
        pipeline(zip, res).catch((err: unknown) => request.log.warn({ err }, 'replay stream ended early'));
        out = zip;
      }
      try {
        await writeChunks(prepend(first, body), out, res);
      } catch (err) {
        // Headers are sent: the client sees the body end without its replay_done line.
        request.log.warn({ err }, 'replay stream ended early');
        res.destroy();
      }
    },
  });
}
