/**
 * The end-to-end ingest scenario shared by the in-process and the Kafka suites: sandbox market (manual clock,
 * fixed seed) -> the real connectors (startIngest) -> bus -> raw writer -> chDB, with injected faults. Returns
 * what the assertions need; `assertScenario` checks it.
 */
import assert from 'node:assert/strict';
import type { Bus } from '#bus/types.ts';
import type { MarketSymbol, Venue } from '#schemas/events.ts';
import type { VenueUrls } from '#ingest/connector/types.ts';
import type { SocketEvent } from '#ingest/transport/resilient-socket.ts';
import type { LedgerKind } from '#sandbox/market/ledger.ts';
import type { MalformedKind } from '#sandbox/servers/types.ts';
import { OVERSIZED_FRAME_BYTES } from '#sandbox/servers/host.ts';
import { DEAD_LETTER_RAW_MAX } from '#ingest/pipeline/venue-sink.ts';
import { SANDBOX_VENUES, VENUE_SPECS, type SandboxVenue } from '#sandbox/market/venues.ts';
import { startSandbox, type Sandbox } from '#sandbox/sandbox.ts';
import { connectorUrlsFor } from '#sandbox/connector-urls.ts';
import { startIngest, type RunningIngest } from '#ingest/pipeline/run-ingest.ts';
import { startRawWriter } from '#processors/raw-writer/raw-writer.ts';
import { migrate } from '#clickhouse/migrate.ts';
import { openTempStore } from '#clickhouse/testing/temp-store.ts';
import { ensureProductTopics } from '#bus/topics.ts';
import {
  compareWithLedger,
  countsByVenue,
  pendingMessages,
  storedDeadLetters,
  waitFor,
  type SetDiff,
  type StoredDeadLetter,
} from '#sandbox/harness/ledger-check.ts';

export const SYMBOLS: readonly MarketSymbol[] = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'HYPEUSDT'];
const KINDS: readonly LedgerKind[] = ['option_trade', 'perp_trade', 'spot_trade', 'liquidation'];
/**
 * One malformed frame per venue, a different kind each (sent to every connection of the venue). Paradex 'truncated'
 * is a cut SBE binary frame: its dead letter keeps the bytes base64-encoded. Delta's 'oversized' frame (2 MiB, over
 * Kafka's default largest message) becomes a dead letter holding its first 64 Ki characters.
 */
const MALFORMED: Readonly<Record<SandboxVenue, MalformedKind>> = {
  deribit: 'truncated',
  bybit: 'not_json',
  okx: 'bad_field',
  binance: 'truncated',
  derive: 'not_json',
  thalex: 'bad_field',
  delta_india: 'truncated',
  delta: 'oversized',
  bullish: 'bad_field',
  paradex: 'truncated',
};
/** Venues that publish liquidations (the others have no public feed, so the model generates none there). */
const LIQUIDATING: readonly SandboxVenue[] = SANDBOX_VENUES.filter((v) => VENUE_SPECS[v].liquidations !== 'none');
const STALE_MS = 1000;
// Longer than the stale detection (<= 1.25 x STALE_MS after the last frame), shorter than the time a socket reopened
// during the silence takes to go stale itself: no socket is killed while frames are on the wire.
const SILENCE_MS = 1600;
const OPTION_BURST = 400;

export interface ScenarioResult {
  readonly diffs: Readonly<Record<string, SetDiff>>;
  readonly malformedSent: Readonly<Record<string, number>>;
  readonly deadLetters: readonly StoredDeadLetter[];
  /** Socket closes and stale terminations seen by the connectors, per venue. */
  readonly closes: Readonly<Record<string, number>>;
  readonly stales: Readonly<Record<string, number>>;
  readonly counts: Record<string, Record<string, number>>;
  readonly seconds: number;
}

/** Drives the sandbox's manual clock: `simPerTick` simulated ms every `everyMs` real ms, until paused. */
class ClockDriver {
  #timer: NodeJS.Timeout | null = null;
  constructor(
    private readonly sb: Sandbox,
    private readonly simPerTick: number,
    private readonly everyMs: number,
  ) {}
  run(): void {
    this.#timer ??= setInterval(() => this.sb.advance(this.simPerTick), this.everyMs);
  }
  pause(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function runIngestScenario(makeBus: () => Promise<Bus> | Bus): Promise<ScenarioResult> {
  const started = Date.now();
  const since = started - 1000;
  const venues: readonly SandboxVenue[] = SANDBOX_VENUES;
  const { store, dispose } = await openTempStore();
  const bus = await makeBus();
  let sb: Sandbox | null = null;
  let ingest: RunningIngest | null = null;
  const groupId = `e2e-raw-${started}`;
  const closes: Record<string, number> = {};
  const stales: Record<string, number> = {};
  const onSocketEvent = (venue: Venue, conn: string, e: SocketEvent): void => {
    if (process.env['E2E_DEBUG']) console.log('sock', Date.now() - started, sb?.market.now, venue, conn, e.type);
    if (e.type === 'close') closes[venue] = (closes[venue] ?? 0) + 1;
    if (e.type === 'stale') stales[venue] = (stales[venue] ?? 0) + 1;
  };
  try {
    await migrate(store);
    await ensureProductTopics(bus, 3);
    const writer = await startRawWriter(bus, store, { groupId });
    sb = await startSandbox({
      seed: 20240601,
      venues,
      symbols: SYMBOLS,
      speed: 0,
      // Fewer option tickers than the real 5 s cadence keep the run light; trades are what is compared.
      model: { tickerIntervalMs: 20_000 },
      // Bullish's trade socket carries only the venue's sparse trades: its heartbeats keep it within STALE_MS.
      timings: { bullishHeartbeatMs: 300, binancePingIntervalMs: 300 },
    });
    const urls: Partial<Record<Venue, VenueUrls>> = {};
    for (const v of venues) {
      const u = sb.urls[v];
      if (u) urls[v] = connectorUrlsFor(v, u);
    }
    const clock = new ClockDriver(sb, 200, 50); // 4x real time: every connection sees traffic well within STALE_MS
    clock.run();
    ingest = await startIngest({
      bus,
      venues,
      symbols: SYMBOLS,
      urls,
      staleMs: STALE_MS,
      reconnectBackoff: { baseMs: 50, maxMs: 400, resetAfterMs: 60_000 },
      onSocketEvent,
    });
    const running = ingest;
    const allOpen = (): boolean =>
      running.venues.length === venues.length &&
      running.venues.every((v) => v.connections().open === v.connections().planned && v.connections().planned > 0);
    await waitFor('every planned connection open', allOpen, 20_000);
    await sleep(1000);

    // A burst of trades and liquidations on every venue, then one malformed frame per venue.
    const sandbox = sb;
    for (const v of venues) {
      sandbox.emitTrades(v, OPTION_BURST);
      if (LIQUIDATING.includes(v)) sandbox.faults.liquidations(v, 8);
    }
    await sleep(500);
    const malformedSent: Record<string, number> = {};
    for (const v of venues) malformedSent[v] = sandbox.faults.malformed(v, MALFORMED[v]);
    await sleep(1500);

    // Drop every client. The clock is paused around it so no frame is on the wire while sockets die.
    clock.pause();
    await sleep(400);
    const closesBefore = { ...closes };
    sandbox.faults.disconnect();
    await waitFor('closes after the disconnect', () => venues.every((v) => (closes[v] ?? 0) > (closesBefore[v] ?? 0)), 10_000);
    await waitFor('reconnected after the disconnect', allOpen, 20_000);
    await sleep(300); // subscriptions processed by the servers
    clock.run();
    await sleep(1500);
    for (const v of LIQUIDATING) sandbox.faults.liquidations(v, 8);
    await sleep(500);

    // Silence longer than the stale timeout: the connectors must notice and reconnect by themselves.
    const stalesBefore = { ...stales };
    for (const v of venues) sandbox.faults.silence(v, SILENCE_MS);
    await waitFor('stale reconnects', () => venues.every((v) => (stales[v] ?? 0) > (stalesBefore[v] ?? 0)), 15_000);
    await sleep(SILENCE_MS);
    await waitFor('reconnected after the silence', allOpen, 20_000);
    await sleep(1500);
    for (const v of venues) sandbox.emitTrades(v, OPTION_BURST);
    await sleep(1000);

    // Quiesce, then wait until the raw writer committed everything that was published.
    clock.pause();
    await sleep(800);
    await running.flush();
    await waitFor(
      'raw writer caught up',
      async () => {
        const n = await pendingMessages(bus, groupId);
        if (process.env['E2E_DEBUG']) console.log('pending', n);
        return n === 0;
      },
      60_000,
      250,
    );
    await running.stop();
    ingest = null;
    await writer.stop();

    const diffs: Record<string, SetDiff> = {};
    for (const v of venues) {
      for (const k of KINDS) {
        if (sandbox.ledger.count(v, k) === 0 && sandbox.generated.count(v, k) === 0) continue;
        diffs[`${v}/${k}`] = await compareWithLedger(store, sandbox.ledger, sandbox.generated, v, k, since);
      }
    }
    const tables = [
      'instruments',
      'option_trades',
      'option_tickers',
      'perp_trades',
      'spot_trades',
      'perp_stats',
      'liquidations',
      'index_prices',
      'dead_letters',
    ];
    return {
      diffs,
      malformedSent,
      deadLetters: await storedDeadLetters(store, since),
      closes,
      stales,
      counts: await countsByVenue(store, tables, since),
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    if (ingest) await ingest.stop();
    if (sb) await sb.stop();
    await bus.close();
    await dispose();
  }
}

/** The scenario's acceptance checks (shared by both suites). */
export function assertScenario(r: ScenarioResult): void {
  for (const [key, d] of Object.entries(r.diffs)) {
    assert.ok(d.expected > 0, `${key}: the ledger is empty`);
    assert.deepEqual(
      { key, missing: d.missing.slice(0, 5), extra: d.extra.slice(0, 5), doubled: d.doubled },
      { key, missing: [], extra: [], doubled: 0 },
    );
    // Stored = delivered + what the gap fill recovered of the trades printed while a connection was down.
    assert.equal(d.stored, d.expected + d.recovered.length, `${key}: stored vs delivered + recovered`);
  }
  for (const v of SANDBOX_VENUES) {
    for (const k of ['option_trade', 'perp_trade'] as const) assert.ok(r.diffs[`${v}/${k}`], `${v}/${k} was compared`);
    if (LIQUIDATING.includes(v)) assert.ok(r.diffs[`${v}/liquidation`], `${v}/liquidation was compared`);
    else assert.equal(r.diffs[`${v}/liquidation`], undefined, `${v} publishes no liquidations`);
    const letters = r.deadLetters.filter((d) => d.venue === v);
    assert.equal(
      letters.length,
      r.malformedSent[v],
      `${v}: one dead letter per malformed frame sent (${JSON.stringify(letters.map((l) => l.reason))})`,
    );
    assert.ok((r.malformedSent[v] ?? 0) > 0, `${v}: malformed frame delivered`);
    for (const l of letters) assert.ok(l.reason.length > 0 && l.raw.length > 0, `${v}: dead letter has a reason and the raw frame`);
    assert.ok((r.closes[v] ?? 0) >= 2, `${v}: reconnected after the disconnect and the silence`);
    assert.ok((r.stales[v] ?? 0) >= 1, `${v}: stale timeout fired`);
  }
  for (const t of ['option_trades', 'option_tickers', 'perp_trades', 'perp_stats', 'instruments']) {
    for (const v of SANDBOX_VENUES) assert.ok((r.counts[t]?.[v] ?? 0) > 0, `${t}: rows from ${v}`);
  }
  // Index rows from every venue with an index feed (Bybit and Paradex carry the index inside their tickers only).
  for (const v of SANDBOX_VENUES.filter((x) => x !== 'bybit' && x !== 'paradex'))
    assert.ok((r.counts['index_prices']?.[v] ?? 0) > 0, `index_prices: rows from ${v}`);
  for (const v of LIQUIDATING) assert.ok((r.counts['liquidations']?.[v] ?? 0) > 0, `liquidations: rows from ${v}`);
  const oversized = r.deadLetters.filter((d) => d.venue === 'delta');
  assert.ok(
    oversized.length > 0 &&
      oversized.every((d) => d.raw.length === DEAD_LETTER_RAW_MAX && d.reason.includes(`frame of ${OVERSIZED_FRAME_BYTES} characters`)),
    'delta: the oversized frame is a dead letter of its first 64 Ki characters',
  );
  const binary = r.deadLetters.filter((d) => d.venue === 'paradex' && d.encoding === 'base64');
  assert.equal(binary.length, r.malformedSent['paradex'], 'paradex: the cut SBE binary frame is a base64 dead letter');
}
