/**
 * Stored option trades against the sandbox ledger, for the slice of the ledger written during one scenario.
 *
 * Definitions (per scenario, over the flood venues, option trades, by venue trade id):
 * - offered: trades the venues printed during the scenario (the model's `generated` ledger: also those printed while
 *   no ingest was connected, which only a REST gap fill can recover);
 * - delivered: of those, the ones written to a subscribed socket (the sandbox's delivered ledger);
 * - lost: offered trades with no stored row (`SELECT … FROM option_trades FINAL`);
 * - doubled: stored rows after FINAL minus distinct event ids (sandbox/harness/ledger-check.ts): > 0 means one trade id stored
 *   under two sort keys, i.e. twice for every reader. A batch inserted twice with the same rows (redelivery after a
 *   kill) collapses to one row under FINAL (ReplacingMergeTree on the event id) and is not doubled.
 * The comparison itself is sandbox/harness/ledger-check.ts `compareWithLedger`, on ledgers rebuilt from the slice.
 */
import type { Store } from '#clickhouse/store.ts';
import { TradeLedger, type LedgerEntry } from '#sandbox/market/ledger.ts';
import { compareWithLedger } from '#sandbox/harness/ledger-check.ts';

/** Ledger lengths per venue when a scenario starts. */
export interface LedgerMark {
  readonly generated: Readonly<Record<string, number>>;
  readonly delivered: Readonly<Record<string, number>>;
}

/** Option-trade ledger entries written after a mark, per venue. */
export interface LedgerSlice {
  readonly generated: Readonly<Record<string, readonly LedgerEntry[]>>;
  readonly delivered: Readonly<Record<string, readonly LedgerEntry[]>>;
}

export interface TradeCount {
  readonly offered: number;
  readonly delivered: number;
  readonly stored: number;
  readonly lost: number;
  /** Delivered to a socket and not stored (a subset of lost). */
  readonly lostDelivered: number;
  readonly doubled: number;
  /** Stored, printed, never delivered on a socket: recovered by a REST fill. */
  readonly recovered: number;
  /** A few lost ids, for the report. */
  readonly lostSample: readonly string[];
}

function ledgerOf(entries: Readonly<Record<string, readonly LedgerEntry[]>>): TradeLedger {
  const l = new TradeLedger();
  for (const [venue, list] of Object.entries(entries)) for (const e of list) l.record(venue, e);
  return l;
}

/** Compares the slice with what is stored (rows received since `sinceMs`: the scenario's start minus a margin). */
export async function compareSlice(store: Store, slice: LedgerSlice, sinceMs: number): Promise<TradeCount> {
  const generated = ledgerOf(slice.generated);
  const delivered = ledgerOf(slice.delivered);
  let offered = 0,
    deliveredN = 0,
    stored = 0,
    lost = 0,
    lostDelivered = 0,
    doubled = 0,
    recovered = 0;
  const lostSample: string[] = [];
  for (const venue of Object.keys(slice.generated)) {
    const printed = await compareWithLedger(store, generated, generated, venue, 'option_trade', sinceMs);
    const onSocket = await compareWithLedger(store, delivered, generated, venue, 'option_trade', sinceMs);
    offered += printed.expected;
    deliveredN += onSocket.expected;
    lost += printed.missing.length;
    stored += printed.expected - printed.missing.length;
    lostDelivered += onSocket.missing.length;
    doubled += printed.doubled;
    recovered += onSocket.recovered.length;
    lostSample.push(...printed.missing.slice(0, 3).map((id) => `${venue}:${id}`));
  }
  return { offered, delivered: deliveredN, stored, lost, lostDelivered, doubled, recovered, lostSample };
}
