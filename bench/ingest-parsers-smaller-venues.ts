/**
 * Parser throughput on one core for the five smaller venues (Derive, Thalex, Delta, Bullish, Paradex): trade
 * frames (fixtures, ids / times varied per copy) parsed by the venue parser vs a bare JSON.parse of the same
 * frames; Paradex SBE binary trade frames vs a baseline that reads every byte of the same frames once.
 * Target >= 200k frames/s. Run: node --import tsx bench/ingest-parsers-smaller-venues.ts
 */
import { registerInstruments, createParserContext } from '#ingest/connector/context.ts';
import { fixtureLine, fixtureText } from '#ingest/venues/fixtures/load.ts';
import { createBullishConnector } from '#ingest/venues/bullish/index.ts';
import { createDeltaConnector } from '#ingest/venues/delta/index.ts';
import { createDeriveConnector } from '#ingest/venues/derive/index.ts';
import { createParadexConnector } from '#ingest/venues/paradex/index.ts';
import { encodeTrade } from '#ingest/venues/paradex/sbe-encode.ts';
import { createThalexConnector } from '#ingest/venues/thalex/index.ts';
import type { ParserContext, RestParseResult, VenueConnectorSpec } from '#ingest/connector/types.ts';
import { corpus, rate, COPIES } from './parser-rate.ts';

interface Case {
  readonly name: string;
  readonly spec: VenueConnectorSpec;
  readonly frames: readonly string[];
  readonly listing?: (body: string, ctx: ParserContext) => RestParseResult;
  readonly listingBody?: string;
}

function cases(): Case[] {
  const delta = createDeltaConnector('delta_india');
  return [
    {
      name: 'derive',
      spec: createDeriveConnector(),
      frames: corpus(
        [fixtureLine('derive/docs.jsonl', '"channel":"trades.option.BTC'), fixtureLine('derive/docs.jsonl', '"channel":"trades.perp.BTC')],
        /"trade_id":"[0-9a-f]+/g,
      ),
    },
    {
      name: 'thalex',
      spec: createThalexConnector(),
      frames: corpus([fixtureLine('thalex/docs.jsonl', '"notification":[[')], /,1652187265\.5/g),
    },
    {
      name: 'delta_india',
      spec: delta,
      frames: corpus(
        [fixtureLine('delta/docs.jsonl', '"type":"trades","sy":"BTCUSD"'), fixtureLine('delta/docs.jsonl', '"sy":"C-BTC-90000-310326"')],
        /"t":17758003665/g,
      ),
      listing: delta.instrumentRequests(['BTCUSDT'])[0]?.parse,
      listingBody: fixtureText('delta/products.json'),
    },
    {
      name: 'bullish',
      spec: createBullishConnector(),
      frames: corpus(
        [
          fixtureLine('bullish/derived.jsonl', '"symbol":"BTC-USDC-20260425-70000-C"'),
          fixtureLine('bullish/derived.jsonl', '"symbol":"BTC-USDC-PERP"'),
        ],
        /"tradeId":"\d+/g,
      ),
    },
    {
      name: 'paradex json',
      spec: createParadexConnector(),
      frames: corpus([fixtureLine('paradex/docs.jsonl', '"channel":"trades.BTC-USD-PERP","data"')], /"id":"\d+/g),
    },
  ];
}

const kfps = (x: number): string => `${(x / 1000).toFixed(0)}k/s`;
const verdict = (x: number): string => (x >= 200_000 ? 'OK' : 'BELOW 200k target');

export async function runSmallerVenueParserBench(): Promise<void> {
  console.log('ingest parsers (Derive, Thalex, Delta, Bullish, Paradex): trade frames/s on one core');
  for (const c of cases()) {
    const ctx = createParserContext({ venue: c.spec.venue, connection: 'public', receivedAt: Date.now() });
    if (c.listing !== undefined && c.listingBody !== undefined) {
      const r = c.listing(c.listingBody, ctx);
      if (r.ok) registerInstruments(ctx, r.events);
    }
    const check = c.spec.parse(c.frames[0] ?? '', ctx);
    if (check.outcome !== 'events') throw new Error(`${c.name}: bench frame does not parse: ${JSON.stringify(check)}`);
    rate(c.frames, (f) => JSON.parse(f) as unknown);
    rate(c.frames, (f) => c.spec.parse(f, ctx));
    const base = rate(c.frames, (f) => JSON.parse(f) as unknown);
    const parsed = rate(c.frames, (f) => c.spec.parse(f, ctx));
    console.log(
      `  ${c.name.padEnd(12)} parse ${kfps(parsed).padStart(8)}   JSON.parse ${kfps(base).padStart(8)}   ratio ${(parsed / base).toFixed(2)}   ${verdict(parsed)}`,
    );
  }
  const paradex = createParadexConnector();
  const ctx = createParserContext({ venue: 'paradex', connection: 'public', receivedAt: Date.now() });
  const frames: Buffer[] = [];
  for (let n = 0; n < COPIES; n++) {
    frames.push(
      encodeTrade({
        timestampUs: 1778150400123456n + BigInt(n),
        seqNo: BigInt(n),
        tradeId: 987654321n + BigInt(n),
        side: 1 + (n % 2),
        price: 9650050000000n,
        size: 12500000n,
        createdAtUs: 1778150400123000n + BigInt(n),
        tradeType: 1,
        market: 'BTC-USD-PERP',
      }),
    );
  }
  const check = paradex.parseBinary(frames[0] ?? Buffer.alloc(0), ctx);
  if (check.outcome !== 'events') throw new Error(`paradex sbe: bench frame does not parse: ${JSON.stringify(check)}`);
  const readBytes = (b: Buffer): number => {
    let s = 0;
    for (let i = 0; i < b.length; i++) s += b[i] ?? 0;
    return s;
  };
  rate(frames, readBytes);
  rate(frames, (f) => paradex.parseBinary(f, ctx));
  const base = rate(frames, readBytes);
  const parsed = rate(frames, (f) => paradex.parseBinary(f, ctx));
  console.log(
    `  ${'paradex sbe'.padEnd(12)} parse ${kfps(parsed).padStart(8)}   read bytes ${kfps(base).padStart(8)}   ratio ${(parsed / base).toFixed(2)}   ${verdict(parsed)}`,
  );
  await Promise.resolve();
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) await runSmallerVenueParserBench();
