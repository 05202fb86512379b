/** Reading what the raw writer stored, and comparing it with the sandbox ledger (e2e tests and the bench). */
import type { Store } from '../../clickhouse/store.ts';
import type { Bus } from '../../ops/floor/bus/types.ts';
import { RAW_TOPICS } from '../../processors/raw-writer/raw-writer.ts';
import type { TradeLedger, LedgerKind } from '../../ingest/sandbox/market/ledger.ts';
import { msParam, msText } from '../../clickhouse/epoch-ms.ts';

export interface SetDiff {
  readonly expected: number;
  readonly stored: number;
  /** Stored rows (FINAL) minus distinct ids: > 0 would mean one id stored twice under different keys. */
  readonly doubled: number;
  readonly missing: readonly string[];
  readonly extra: readonly string[];
}

const TABLE_OF: Readonly<Record<LedgerKind, string>> = {
  option_trade: 'option_trades',
  perp_trade: 'perp_trades',
  spot_trade: 'spot_trades',
  liquidation: 'liquidations',
};

/** Messages published but not yet committed by `groupId`, over every raw topic. */
export async function pendingMessages(bus: Bus, groupId: string): Promise<number> {
  let n = 0;
  for (const topic of RAW_TOPICS) {
    for (const p of await bus.lag(groupId, topic)) {
      // Kafka reports committed -1 for a partition the group never committed (e.g. an empty one).
      const d = Number(p.end) - Math.max(0, Number(p.committed));
      if (d > 0 && process.env['E2E_DEBUG']) console.log('lag', topic, p.partition, p.committed, p.end);
      n += d;
    }
  }
  return n;
}

export async function waitFor(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 30_000, everyMs = 50): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/**
 * Trades are compared by venue trade id; liquidations (no venue id on Bybit / OKX / Binance) by
 * `instrument|ts` occurrences. Only rows received since `sinceMs` count (a shared Kafka may hold older runs).
 */
export async function compareWithLedger(store: Store, ledger: TradeLedger, venue: string, kind: LedgerKind, sinceMs: number): Promise<SetDiff> {
  const table = TABLE_OF[kind];
  const keyExpr = kind === 'liquidation' ? `concat(instrument, '|', ${msText('ts')})` : 'trade_id';
  const rows = await store.query<{ k: string; id: string }>(
    `SELECT ${keyExpr} AS k, id FROM ${table} FINAL WHERE venue = {venue:String} AND received_at >= ${msParam('since')}`,
    { venue, since: sinceMs },
  );
  const entries = ledger.entries(venue, kind);
  const expected = entries.map((e) => (kind === 'liquidation' ? `${e.instrument}|${e.ts}` : e.tradeId));
  const storedKeys = rows.map((r) => r.k);
  if (process.env['E2E_DEBUG']) {
    const miss = new Set(multisetMinus(expected, storedKeys));
    console.log('missing', venue, kind, entries.filter((e) => miss.has(e.tradeId)).map((e) => `${e.instrument}:${e.ts}`).join(' '));
  }
  return {
    expected: expected.length,
    stored: rows.length,
    doubled: rows.length - new Set(rows.map((r) => r.id)).size,
    missing: multisetMinus(expected, storedKeys),
    extra: multisetMinus(storedKeys, expected),
  };
}

function multisetMinus(a: readonly string[], b: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const k of b) counts.set(k, (counts.get(k) ?? 0) + 1);
  const out: string[] = [];
  for (const k of a) {
    const n = counts.get(k) ?? 0;
    if (n > 0) counts.set(k, n - 1);
    else out.push(k);
  }
  return out;
}

export interface StoredDeadLetter {
  readonly venue: string;
  readonly channel: string;
  readonly reason: string;
  readonly raw: string;
  /** 'utf8', or 'base64' for binary frames. */
  readonly encoding: string;
}

export async function storedDeadLetters(store: Store, sinceMs: number): Promise<readonly StoredDeadLetter[]> {
  return store.query<StoredDeadLetter>(
    `SELECT venue, channel, reason, raw, encoding FROM dead_letters FINAL WHERE received_at >= ${msParam('since')} ORDER BY received_at`,
    { since: sinceMs },
  );
}

/** Rows (FINAL) per table and venue received since `sinceMs`. */
export async function countsByVenue(store: Store, tables: readonly string[], sinceMs: number): Promise<Record<string, Record<string, number>>> {
  const out: Record<string, Record<string, number>> = {};
  for (const t of tables) {
    const rows = await store.query<{ venue: string; n: string }>(
      `SELECT venue, count() AS n FROM ${t} FINAL WHERE received_at >= ${msParam('since')} GROUP BY venue ORDER BY venue`,
      { since: sinceMs },
    );
    out[t] = Object.fromEntries(rows.map((r) => [r.venue, Number(r.n)]));
  }
  return out;
}
