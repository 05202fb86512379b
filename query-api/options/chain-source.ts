/**
 * Shared by the chain-family routes (chain, venue book, OI by expiry, smile, term structure, greek exposures): the
 * chain instant (the newest stored consolidated chain at or before `as_of`, never after, bounded by the plan window —
 * the /v2/gex/levels semantics; without `as_of` the newest stored), its rows read once from option_chain_snapshots*
 * and memoized per (symbol, instant), the venue filter (`exchanges` rules) and the expiry selection (404 when not
 * listed), and the meta of the answer.
 */
import type { FastifyRequest } from 'fastify';
import { prepareChain } from '#processors/analytics/gex.ts';
import type { OpenInstrument } from '#processors/analytics/gex.ts';
import type { ChainSnapshot, DealerModel } from '#processors/analytics/types.ts';
import type { OptionChainRow } from '#processors/snapshots/option-chain.ts';
import type { MarketSymbol } from '#schemas/events.ts';
import type { MetaFields } from '../envelope/envelope.ts';
import { notFound } from '../envelope/errors.ts';
import { chainAtOrBefore, chainInstantAtOrBefore, servedChainRowsAt, withTradesAt } from './chain-reads.ts';
import type { ChainInstant } from './chain-reads.ts';
import type { AppContext } from '../types.ts';
import { parseExpiry, venueFilter } from '../params/query-params.ts';
import { asOfMeta, resolveInstant } from '../gex/point-in-time.ts';
import type { ResolvedInstant } from '../gex/point-in-time.ts';
import { positioningMeta } from '../gex/positioning.ts';
import { gexMeta } from '../gex/respond.ts';
import { TtlCache } from '../cache/ttl-cache.ts';

const DAY_MS = 86_400_000;
/** Chains kept per memo: at most 16, none older than 2 minutes (a new instant every 30 s: an age bound keeps memory flat). */
const MEMO_SIZE = 16;
const MEMO_AGE_MS = 120_000;

export interface ResolvedChainInstant extends ChainInstant {
  readonly asOf?: { readonly requested: string; readonly servedMs: number; readonly history: ResolvedInstant['history'] };
}

/**
 * Latest: the newest stored chain (instant lookup; its rows usually memoized); as_of: the newest at or before the
 * clamped instant (never after), read with its rows in one statement and handed to `memo` when given.
 */
export async function resolveChainInstant(
  ctx: AppContext,
  request: FastifyRequest,
  symbol: MarketSymbol,
  asOf: string | undefined,
  memo?: ChainMemo,
): Promise<ResolvedChainInstant> {
  if (asOf === undefined) {
    const at = await chainInstantAtOrBefore(ctx.store, symbol, ctx.clock());
    if (at === null) throw notFound(`no option chain for ${symbol} yet`);
    return at;
  }
  const r = resolveInstant(ctx, request, asOf);
  const found = await chainAtOrBefore(ctx.store, symbol, r.servedMs, ctx.clock());
  if (found === null) throw notFound(`no option chain for ${symbol} at or before ${new Date(r.servedMs).toISOString()}`);
  await memo?.put(ctx, symbol, found.at, found.rows);
  return { ...found.at, asOf: { requested: r.requested, servedMs: r.servedMs, history: r.history } };
}

export interface StoredChain {
  readonly rows: readonly OptionChainRow[];
  /** The engine input of the same rows (greek exposures). */
  readonly chain: ChainSnapshot;
  readonly open: readonly OpenInstrument[];
}

/** The engine's ChainSnapshot of stored rows (spot and perp price are the tick's, stored on every row). */
export function chainSnapshotOf(symbol: MarketSymbol, t: number, rows: readonly OptionChainRow[]): ChainSnapshot {
  const first = rows[0];
  return {
    symbol,
    now: t,
    spot: first?.spot ?? 0,
    perpPrice: first?.perp_price ?? null,
    instruments: rows.map((r) => ({
      venue: r.venue as ChainSnapshot['instruments'][number]['venue'],
      strike: r.strike,
      expiry: r.expiry,
      type: r.option_type,
      openInterest: r.open_interest,
      markIv: r.mark_iv,
      forward: r.forward,
      ...(r.dealer_inventory !== null ? { dealerInventory: r.dealer_inventory } : {}),
    })),
  };
}

/** A stored chain with its engine input; the GEX preparation (greek routes only) is computed on first use. */
function storedChain(symbol: MarketSymbol, t: number, rows: readonly OptionChainRow[]): StoredChain | null {
  if (rows.length === 0) return null;
  const chain = chainSnapshotOf(symbol, t, rows);
  let open: readonly OpenInstrument[] | undefined;
  return {
    rows,
    chain,
    get open(): readonly OpenInstrument[] {
      open ??= prepareChain(chain).open;
      return open;
    },
  };
}

/** Chains per (symbol, instant), the most recent MEMO_SIZE read in the last MEMO_AGE_MS kept; a stored instant never changes. */
export class ChainMemo {
  private readonly entries = new TtlCache<StoredChain | null>({ ttlMs: MEMO_AGE_MS, clock: Date.now, maxWeight: MEMO_SIZE });

  get(ctx: AppContext, symbol: MarketSymbol, at: ChainInstant): Promise<StoredChain | null> {
    return this.entries.get(`${symbol}|${at.table}|${at.t}`, async () => {
      return storedChain(symbol, at.t, await servedChainRowsAt(ctx.store, symbol, at));
    });
  }

  /** Rows already read (an as_of lookup reads the instant and its rows in one statement); their trades are read here. */
  put(ctx: AppContext, symbol: MarketSymbol, at: ChainInstant, rows: readonly OptionChainRow[]): Promise<StoredChain | null> {
    return this.entries.get(`${symbol}|${at.table}|${at.t}`, async () =>
      storedChain(symbol, at.t, await withTradesAt(ctx.store, symbol, at.t, rows)),
    );
  }
}

export interface Selection {
  readonly stored: StoredChain;
  /** Stored rows of the selected venues (and expiry day). */
  readonly rows: readonly OptionChainRow[];
  /** Open engine instruments of the selected venues (and expiry day). */
  readonly open: readonly OpenInstrument[];
  readonly applied: readonly string[] | undefined;
}

export interface SelectionQuery {
  readonly symbol: MarketSymbol;
  readonly exchanges?: string | undefined;
  readonly expiry?: string | undefined;
}

/** Venue filter (the `exchanges` rules) and expiry day (27DEC24 / 2024-12-27; 404 when no contract has it). */
export async function selectChain(ctx: AppContext, memo: ChainMemo, q: SelectionQuery, at: ChainInstant): Promise<Selection> {
  const stored = await memo.get(ctx, q.symbol, at);
  if (stored === null) throw notFound(`no option chain for ${q.symbol} at ${new Date(at.t).toISOString()}`);
  const filter = venueFilter(q.exchanges);
  const venues = filter.venues === undefined ? null : new Set<string>(filter.venues);
  let rows = venues === null ? stored.rows : stored.rows.filter((r) => venues.has(r.venue));
  const day = q.expiry === undefined ? null : parseExpiry(q.expiry);
  const inDay = (e: number): boolean => day === null || (e >= day && e < day + DAY_MS);
  if (day !== null) {
    if (!stored.rows.some((r) => inDay(r.expiry))) throw notFound(`expiry ${q.expiry ?? ''} is not listed for ${q.symbol}`);
    rows = rows.filter((r) => inDay(r.expiry));
  }
  // `open` (the GEX preparation) is computed only when a route reads it (the greek routes)
  let open: readonly OpenInstrument[] | undefined;
  return {
    stored,
    rows,
    get open(): readonly OpenInstrument[] {
      open ??= stored.open.filter((i) => (venues === null || venues.has(i.venue)) && inDay(i.expiry));
      return open;
    },
    applied: filter.applied,
  };
}

/** Meta of a chain-family answer: spot of the chain, its instant, the venues answering, positioning and as_of. */
export function chainMeta(
  ctx: AppContext,
  symbol: MarketSymbol,
  at: ResolvedChainInstant,
  sel: Selection,
  positioning: { readonly requested: DealerModel; readonly served: DealerModel } | null,
  extra: Readonly<Record<string, unknown>> = {},
): MetaFields {
  return gexMeta(ctx.clock(), {
    symbol,
    spotPrice: sel.stored.chain.spot,
    computedAt: at.t,
    source: [...new Set(sel.rows.map((r) => r.venue))],
    ...(sel.applied !== undefined ? { exchangesFiltered: sel.applied } : {}),
    extra: {
      ...extra,
      ...(positioning !== null ? { positioning: positioningMeta(positioning.requested, positioning.served, symbol) } : {}),
      ...(at.asOf !== undefined ? { as_of: asOfMeta(at.asOf.requested, at.t, at.asOf.servedMs) } : {}),
    },
    ...(at.asOf !== undefined ? { history: at.asOf.history } : {}),
  });
}
