/**
 * Parser throughput on one core: trade frames per venue (recorded fixtures, trade ids varied per copy) parsed
 * by the venue parser vs a bare JSON.parse of the same frames in the same run. Target >= 200k frames/s.
 */
import { registerInstruments, createParserContext } from '#ingest/connector/context.ts';
import { fixtureLine, fixtureText } from '#ingest/venues/fixtures/load.ts';
import { createConnector } from '#ingest/venues/registry.ts';
import type { ParserContext, VenueConnectorSpec } from '#ingest/connector/types.ts';
import { corpus, rate } from './parser-rate.ts';
import { runPeerParserBench } from './ingest-parsers-peer.ts';

interface Case {
  readonly venue: 'deribit' | 'bybit' | 'okx' | 'binance';
  readonly connection: string;
  readonly frames: readonly string[];
  readonly listings?: readonly string[];
}

/** Copies of `lines` with the numeric/uuid trade id varied, so every frame is distinct. */

function cases(): Case[] {
  return [
    {
      venue: 'deribit',
      connection: 'public',
      frames: corpus(
        [fixtureLine('deribit/crypto-crawler.jsonl', 'trades'), fixtureLine('deribit/tardis.jsonl', 'trades.BTC-PERPETUAL')],
        /"trade_id":"\d+/g,
      ),
    },
    {
      venue: 'bybit',
      connection: 'linear',
      frames: corpus(
        [
          fixtureLine('bybit/tardis_options.jsonl', 'publicTrade.BTC'),
          fixtureLine('bybit/docs.jsonl', 'publicTrade.BTCUSDT'),
          fixtureLine('bybit/derived.jsonl', 'publicTrade.BTC'),
        ],
        /"i":"[0-9a-f]+/g,
      ),
    },
    {
      venue: 'okx',
      connection: 'public',
      frames: corpus(
        [
          fixtureLine('okx/docs.jsonl', 'option-trades'),
          fixtureLine('okx/tardis_swap.jsonl', 'BTC-USDT-SWAP","tradeId'),
          fixtureLine('okx/cryptofeed.jsonl', '338476307'),
        ],
        /"tradeId":"\d+/g,
      ),
      listings: [fixtureText('okx/instruments_option.json'), fixtureText('okx/instruments_swap.json')],
    },
    {
      venue: 'binance',
      connection: 'market-0',
      frames: corpus(
        [
          fixtureLine('binance/tardis_options_v2.jsonl', 'btc-251219-89000-c@optionTrade'),
          fixtureLine('binance/tardis_futures.jsonl', 'btcusdt@aggTrade'),
        ],
        /"[tf]":\d+/g,
      ),
    },
  ];
}

function context(spec: VenueConnectorSpec, c: Case): ParserContext {
  const ctx = createParserContext({ venue: spec.venue, connection: c.connection, receivedAt: Date.now() });
  for (const body of c.listings ?? []) {
    for (const req of spec.instrumentRequests(['BTCUSDT'])) {
      const r = req.parse(body, ctx);
      if (r.ok) registerInstruments(ctx, r.events);
    }
  }
  return ctx;
}

export async function runParserBench(): Promise<void> {
  console.log('ingest parsers: trade frames/s on one core (vs bare JSON.parse of the same frames)');
  for (const c of cases()) {
    const spec = createConnector(c.venue);
    const ctx = context(spec, c);
    const check = spec.parse(c.frames[0] ?? '', ctx);
    if (check.outcome !== 'events') throw new Error(`${c.venue}: bench frame does not parse: ${JSON.stringify(check)}`);
    rate(c.frames, (f) => JSON.parse(f) as unknown); // warm-up
    rate(c.frames, (f) => spec.parse(f, ctx));
    const base = rate(c.frames, (f) => JSON.parse(f) as unknown);
    const parsed = rate(c.frames, (f) => spec.parse(f, ctx));
    const kfps = (x: number): string => `${(x / 1000).toFixed(0)}k/s`;
    console.log(
      `  ${c.venue.padEnd(8)} parse ${kfps(parsed).padStart(8)}   JSON.parse ${kfps(base).padStart(8)}   ratio ${(parsed / base).toFixed(2)}   ${parsed >= 200_000 ? 'OK' : 'BELOW 200k target'}`,
    );
  }
  runPeerParserBench();
  await Promise.resolve();
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) await runParserBench();
