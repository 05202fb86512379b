/**
 * The sandbox venue servers' wire output, pinned: for a fixed seed and a fixed script (the real connectors'
 * listings and subscriptions, a stretch of simulated time, trade and liquidation bursts, every malformed kind,
 * then a junk frame and a repeated subscription on every socket), every REST body and every frame each socket
 * receives is digested per venue and compared with `wire-digest.json`. A refactor of the servers must leave it
 * byte-identical. The wall clock is frozen while the script runs (replies carry Date.now()), and the ephemeral
 * ports are masked. After an intended change of the wire format: `UPDATE_WIRE_DIGEST=1 node --import tsx --test
 * sandbox/servers/wire-digest.test.ts` rewrites the file (review the diff).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { WebSocket } from 'ws';
import type { Instrument, MarketSymbol } from '#schemas/events.ts';
import { createParserContext, registerInstruments } from '#ingest/connector/context.ts';
import { createConnector } from '#ingest/venues/registry.ts';
import type { RestRequest, VenueConnectorSpec } from '#ingest/connector/types.ts';
import { connectorUrlsFor } from '../connector-urls.ts';
import { SANDBOX_VENUES, VENUE_SPECS, type SandboxVenue } from '../market/venues.ts';
import { startSandbox, type Sandbox } from '../sandbox.ts';
import type { MalformedKind } from './types.ts';

const DIGEST_FILE = new URL('./wire-digest.json', import.meta.url);
const SYMBOLS: readonly MarketSymbol[] = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'HYPEUSDT'];
const FROZEN_NOW = Date.UTC(2026, 0, 5, 12, 0, 0, 123);
const MALFORMED: readonly MalformedKind[] = ['truncated', 'not_json', 'bad_field'];

interface Recorded {
  readonly socket: string;
  readonly frames: string[];
  readonly ws: WebSocket;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Waits until no socket has received a frame for `quietMs`. */
async function quiesce(all: readonly Recorded[], quietMs = 300): Promise<void> {
  let last = -1;
  for (;;) {
    const n = all.reduce((s, r) => s + r.frames.length, 0);
    if (n === last) return;
    last = n;
    await sleep(quietMs);
  }
}

/** Fetches a listing (following its pages) and returns the bodies and the instruments it yields. */
async function fetchListing(
  spec: VenueConnectorSpec,
  req: RestRequest,
  instruments: Map<string, Instrument>,
  out: string[],
): Promise<void> {
  const ctx = createParserContext({ venue: spec.venue, connection: 'rest', instruments, receivedAt: FROZEN_NOW });
  let url: string | null = req.url;
  let body = req.body;
  for (let page = 0; url !== null && page < 100; page++) {
    const res = await fetch(url, {
      method: req.method ?? 'GET',
      ...(req.headers ? { headers: req.headers } : {}),
      ...(body !== undefined ? { body } : {}),
    });
    const text = await res.text();
    out.push(`${req.id} ${page} ${res.status} ${text}`);
    const parsed = req.parse(text, ctx);
    if (!parsed.ok) return;
    registerInstruments(ctx, parsed.events);
    url = parsed.nextUrl;
    if (parsed.nextBody !== undefined) body = parsed.nextBody;
  }
}

async function open(socket: string, url: string): Promise<Recorded> {
  const ws = new WebSocket(url);
  const frames: string[] = [];
  ws.on('message', (d, isBinary) => frames.push(isBinary ? `bin ${(d as Buffer).toString('hex')}` : `txt ${d.toString()}`));
  ws.on('close', () => frames.push('closed'));
  await new Promise<void>((r, j) => {
    ws.once('open', () => r());
    ws.once('error', j);
  });
  return { socket, frames, ws };
}

async function runScript(sb: Sandbox): Promise<Record<string, string[]>> {
  const rest: Record<string, string[]> = {};
  const sockets: Record<string, { rec: Recorded; frames: readonly string[] }[]> = {};
  for (const v of SANDBOX_VENUES) {
    const urls = sb.urls[v];
    assert.ok(urls);
    const spec = createConnector(v, connectorUrlsFor(v, urls));
    const instruments = new Map<string, Instrument>();
    const bodies: string[] = [];
    for (const req of spec.instrumentRequests(SYMBOLS)) await fetchListing(spec, req, instruments, bodies);
    const known = [...instruments.values()];
    for (const p of spec.pollers(SYMBOLS, known)) await fetchListing(spec, p, new Map(), bodies);
    rest[v] = bodies;
    sockets[v] = [];
    for (const plan of spec.connections(SYMBOLS, known)) {
      const rec = await open(plan.id, plan.url);
      for (const f of plan.subscribeFrames) rec.ws.send(f);
      sockets[v].push({ rec, frames: plan.subscribeFrames });
    }
  }
  const all = Object.values(sockets)
    .flat()
    .map((s) => s.rec);
  await quiesce(all);
  for (let i = 0; i < 40; i++) sb.advance(500);
  await quiesce(all);
  for (const v of SANDBOX_VENUES) {
    sb.emitTrades(v, 25);
    if (VENUE_SPECS[v].liquidations !== 'none') sb.faults.liquidations(v, 6);
  }
  await quiesce(all);
  for (const v of SANDBOX_VENUES) for (const k of MALFORMED) sb.faults.malformed(v, k);
  for (let i = 0; i < 30; i++) sb.advance(1000);
  await quiesce(all);
  for (const s of Object.values(sockets).flat()) {
    s.rec.ws.send('not json {');
    for (const f of s.frames) s.rec.ws.send(f);
  }
  await quiesce(all);
  for (const r of all) r.ws.terminate();
  const out: Record<string, string[]> = {};
  for (const v of SANDBOX_VENUES) {
    const ledger = sb.ledger.entries(v).map((e) => JSON.stringify(e));
    out[v] = [...(rest[v] ?? []), ...(sockets[v] ?? []).flatMap((s) => [`socket ${s.rec.socket}`, ...s.rec.frames]), ...ledger];
  }
  return out;
}

function digest(lines: readonly string[]): { readonly lines: number; readonly sha256: string } {
  const h = createHash('sha256');
  for (const l of lines) h.update(l.replace(/127\.0\.0\.1:\d+/g, 'HOST')).update('\n');
  return { lines: lines.length, sha256: h.digest('hex') };
}

test('sandbox wire output for seed 42 and the fixed script is byte-identical to wire-digest.json', async () => {
  const realNow = Date.now;
  Date.now = () => FROZEN_NOW;
  let sb: Sandbox | null = null;
  try {
    sb = await startSandbox({ seed: 42, speed: 0, startMs: Date.UTC(2026, 0, 5, 12), symbols: SYMBOLS });
    const recorded = await runScript(sb);
    const got: Record<string, { lines: number; sha256: string }> = {};
    for (const v of SANDBOX_VENUES) got[v] = digest(recorded[v] ?? []);
    for (const v of SANDBOX_VENUES) assert.ok((got[v]?.lines ?? 0) > 50, `${v}: only ${got[v]?.lines} lines recorded`);
    if (process.env['UPDATE_WIRE_DIGEST'] === '1') writeFileSync(DIGEST_FILE, `${JSON.stringify(got, null, 2)}\n`);
    if (process.env['WIRE_DUMP']) writeFileSync(process.env['WIRE_DUMP'], JSON.stringify(recorded));
    const want = JSON.parse(readFileSync(DIGEST_FILE, 'utf8')) as Record<SandboxVenue, unknown>;
    assert.deepEqual(got, want);
  } finally {
    await sb?.stop();
    Date.now = realNow;
  }
});
