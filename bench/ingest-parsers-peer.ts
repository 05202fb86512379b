/**
 * Our venue trade parsers vs the peer library's (tardis-dev `normalizeTrades`) on the same frames: frames per
 * CPU-second of each from the frame string (JSON.parse included on both sides), same corpus, same loop, interleaved
 * rounds in one process; the figure per side is the median round. Frame kinds the peer does not map are listed, not
 * measured.
 */
import { registerInstruments, createParserContext } from '#ingest/connector/context.ts';
import { fixtureLine, fixtureText } from '#ingest/venues/fixtures/load.ts';
import { createConnector } from '#ingest/venues/registry.ts';
import type { ParserContext, VenueConnectorSpec } from '#ingest/connector/types.ts';
import { corpus } from './parser-rate.ts';
import { peerTradeParser } from './peer-trades.ts';
import type { PeerExchange } from './peer-trades.ts';

/** Interleaved rounds per side and the length of one round, in ms. */
const ROUNDS = Number(process.env['PEER_BENCH_ROUNDS'] ?? 21);
const ROUND_MS = Number(process.env['PEER_BENCH_ROUND_MS'] ?? 150);
/** Measures only the pairs whose label contains this text (all when unset). */
const ONLY = process.env['PEER_BENCH_ONLY'] ?? '';

interface Pair {
  readonly label: string;
  readonly venue: 'deribit' | 'bybit' | 'okx' | 'binance';
  readonly connection: string;
  readonly lines: readonly string[];
  readonly idPattern: RegExp;
  readonly listings?: readonly string[];
  /** The peer mapper of these frames, or why the peer maps none of them. */
  readonly peer: PeerExchange | { readonly unmapped: string };
}

function pairs(): Pair[] {
  const okxListings = [fixtureText('okx/instruments_option.json'), fixtureText('okx/instruments_swap.json')];
  return [
    {
      label: 'deribit option+perp',
      venue: 'deribit',
      connection: 'public',
      lines: [fixtureLine('deribit/crypto-crawler.jsonl', 'trades'), fixtureLine('deribit/tardis.jsonl', 'trades.BTC-PERPETUAL')],
      idPattern: /"trade_id":"\d+/g,
      peer: 'deribit',
    },
    {
      label: 'okx swap',
      venue: 'okx',
      connection: 'public',
      lines: [fixtureLine('okx/tardis_swap.jsonl', 'BTC-USDT-SWAP","tradeId')],
      idPattern: /"tradeId":"\d+/g,
      listings: okxListings,
      peer: 'okex-swap',
    },
    {
      label: 'okx option',
      venue: 'okx',
      connection: 'public',
      lines: [fixtureLine('okx/docs.jsonl', 'option-trades')],
      idPattern: /"tradeId":"\d+/g,
      listings: okxListings,
      peer: { unmapped: "'okex-options' maps channel trades / trades-all, not option-trades" },
    },
    {
      label: 'bybit option',
      venue: 'bybit',
      connection: 'linear',
      lines: [fixtureLine('bybit/tardis_options.jsonl', 'publicTrade.BTC'), fixtureLine('bybit/derived.jsonl', 'publicTrade.BTC')],
      idPattern: /"i":"[0-9a-f]+/g,
      peer: 'bybit-options',
    },
    {
      label: 'bybit linear',
      venue: 'bybit',
      connection: 'linear',
      lines: [fixtureLine('bybit/docs.jsonl', 'publicTrade.BTCUSDT')],
      idPattern: /"i":"[0-9a-f]+/g,
      peer: 'bybit',
    },
    {
      label: 'binance futures trade',
      venue: 'binance',
      connection: 'market-0',
      lines: [
        fixtureLine('binance/tardis_futures.jsonl', 'btcusdt@trade'),
        fixtureLine('binance/tardis_futures.jsonl', 'btcusdt@trade', 1),
      ],
      idPattern: /"t":\d+/g,
      peer: 'binance-futures',
    },
    {
      label: 'binance futures aggTrade',
      venue: 'binance',
      connection: 'market-0',
      lines: [fixtureLine('binance/tardis_futures.jsonl', 'btcusdt@aggTrade')],
      idPattern: /"[fl]":\d+/g,
      peer: { unmapped: "'binance-futures' maps @trade streams, not @aggTrade" },
    },
    {
      label: 'binance option',
      venue: 'binance',
      connection: 'market-0',
      lines: [fixtureLine('binance/tardis_options_v2.jsonl', 'btc-251219-89000-c@optionTrade')],
      idPattern: /"t":\d+/g,
      peer: { unmapped: "'binance-european-options' maps @trade streams, not @optionTrade" },
    },
  ];
}

function context(spec: VenueConnectorSpec, p: Pair): ParserContext {
  const ctx = createParserContext({ venue: spec.venue, connection: p.connection, receivedAt: Date.now() });
  for (const body of p.listings ?? []) {
    for (const req of spec.instrumentRequests(['BTCUSDT'])) {
      const r = req.parse(body, ctx);
      if (r.ok) registerInstruments(ctx, r.events);
    }
  }
  return ctx;
}

/**
 * Frames per CPU-second of `fn` over the corpus, looped for `runMs` of wall time: CPU time (user + system of this
 * process) rather than wall time, so time the scheduler gives to other processes on a shared machine is not counted.
 */
function cpuRate(frames: readonly string[], fn: (f: string) => unknown, runMs: number): number {
  let sink = 0;
  let done = 0;
  const start = performance.now();
  const cpu0 = process.cpuUsage();
  while (performance.now() - start < runMs) {
    for (const f of frames) if (fn(f) !== undefined) sink++;
    done += frames.length;
  }
  const cpu = process.cpuUsage(cpu0);
  if (sink < 0) console.log(sink);
  return (done / (cpu.user + cpu.system)) * 1e6;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

const kfps = (x: number): string => `${(x / 1000).toFixed(0)}k/s`;

/** Measures every pair the peer maps; throws when either side fails to turn a bench frame into trades. */
export function runPeerParserBench(): void {
  console.log(
    `ingest parsers vs tardis-dev normalizeTrades: frames per CPU-second of this process, JSON.parse included, median of ${ROUNDS} interleaved rounds`,
  );
  for (const p of pairs()) {
    if (!p.label.includes(ONLY)) continue;
    if (typeof p.peer === 'object') {
      console.log(`  ${p.label.padEnd(25)} skipped: peer does not map these frames (${p.peer.unmapped})`);
      continue;
    }
    const spec = createConnector(p.venue);
    const ctx = context(spec, p);
    const peer = peerTradeParser(p.peer);
    for (const line of p.lines) {
      const ours = spec.parse(line, ctx);
      if (ours.outcome !== 'events') throw new Error(`${p.label}: our parser gives no events: ${JSON.stringify(ours)}`);
      const theirs = peer(line);
      if (theirs === undefined || theirs === 0) throw new Error(`${p.label}: peer '${p.peer}' gives no trades for ${line}`);
    }
    const frames = corpus(p.lines, p.idPattern);
    const oursFn = (f: string): unknown => spec.parse(f, ctx);
    cpuRate(frames, oursFn, ROUND_MS); // warm-up
    cpuRate(frames, peer, ROUND_MS);
    const ours: number[] = [];
    const theirs: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      if (r % 2 === 0) {
        ours.push(cpuRate(frames, oursFn, ROUND_MS));
        theirs.push(cpuRate(frames, peer, ROUND_MS));
      } else {
        theirs.push(cpuRate(frames, peer, ROUND_MS));
        ours.push(cpuRate(frames, oursFn, ROUND_MS));
      }
    }
    const o = median(ours);
    const t = median(theirs);
    console.log(
      `  ${p.label.padEnd(25)} ours ${kfps(o).padStart(8)}   peer '${p.peer}' ${kfps(t).padStart(8)}   ours/peer ${(o / t).toFixed(2)}   ${o >= t ? 'OK' : 'BEHIND PEER'}`,
    );
  }
}
