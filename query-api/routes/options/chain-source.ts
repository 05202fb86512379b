/**
 * Shared by the chain-family routes (chain, venue book, OI by expiry, smile, term structure, greek exposures): the
 * chain instant (the newest stored consolidated chain at or before `as_of`, never after, bounded by the plan window —
 * the /v2/gex/levels semantics; without `as_of` the newest stored), its rows read once from option_chain_snapshots*
 * and memoized per (symbol, instant), the venue filter (`exchanges` rules) and the expiry selection (404 when not
 * listed), and the meta of the answer.
 */
import type { FastifyRequest } from 'fastify';
import { prepareChain } from '../../../processors/analytics/gex.ts';
import type { OpenInstrument } from '../../../processors/analytics/gex.ts';
import type { ChainSnapshot, DealerModel } from '../../../processors/analytics/types.ts';
import type { OptionChainRow } from '../../../processors/snapshots/option-chain.ts';
import type { MarketSymbol } from '../../../schemas/events.ts';
import type { MetaFields } from '../../envelope.ts';
import { notFound } from '../../errors.ts';
import { chainInstantAtOrBefore, chainRowsAt } from '../../options/chain-reads.ts';
import type { ChainInstant } from '../../options/chain-reads.ts';
import type { AppContext } from '../../types.ts';
import { parseExpiry, venueFilter } from '../gex/params.ts';
import { asOfMeta, resolveInstant } from '../gex/point-in-time.ts';
import type { ResolvedInstant } from '../gex/point-in-time.ts';
import { positioningMeta } from '../gex/positioning.ts';
import { gexMeta } from '../gex/respond.ts';

const DAY_MS = 86_400_000;
const MEMO_SIZE = 16;

export interface ResolvedChainInstant extends ChainInstant {
  readonly asOf?: { readonly requested: string; readonly servedMs: number; readonly history: ResolvedInstant['history'] };
}

/** Latest: the newest stored chain; as_of: the newest at or before the clamped instant (never after). */
export async function resolveChainInstant(ctx: AppContext, request: FastifyRequest, symbol: MarketSymbol, asOf: string | undefined): Promise<ResolvedChainInstant> {
  if (asOf === undefined) {
    const at = await chainInstantAtOrBefore(ctx.store, symbol, ctx.clock());
    if (at === null) throw notFound(`no option chain for ${symbol} yet`);
    return at;
  }
  const r = resolveInstant(ctx, request, asOf);
  const at = await chainInstantAtOrBefore(ctx.store, symbol, r.servedMs);
  if (at === null) throw notFound(`no option chain for ${symbol} at or before ${new Date(r.servedMs).toISOString()}`);
  return { ...at, asOf: { requested: r.requested, servedMs: r.servedMs, history: r.history } };
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

/** Chains per (symbol, instant), most recent MEMO_SIZE kept; a stored instant never changes. */
export class ChainMemo {
  private readonly entries = new Map<string, Promise<StoredChain | null>>();

  get(ctx: AppContext, symbol: MarketSymbol, at: ChainInstant): Promise<StoredChain | null> {
    const key = `${symbol}|${at.table}|${at.t}`;
    let p = this.entries.get(key);
    if (p === undefined) {
      p = chainRowsAt(ctx.store, symbol, at).then((rows) => {
        if (rows.length === 0) return null;
        const chain = chainSnapshotOf(symbol, at.t, rows);
        return { rows, chain, open: prepareChain(chain).open };
      });
      p.catch(() => this.entries.delete(key));
      this.entries.set(key, p);
      if (this.entries.size > MEMO_SIZE) this.entries.delete(this.entries.keys().next().value as string);
    }
    return p;
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
  let open = venues === null ? stored.open : stored.open.filter((i) => venues.has(i.venue));
  let rows = venues === null ? stored.rows : stored.rows.filter((r) => venues.has(r.venue));
  const day = q.expiry === undefined ? null : parseExpiry(q.expiry);
  if (day !== null) {
    const inDay = (e: number): boolean => e >= day && e < day + DAY_MS;
    if (!stored.rows.some((r) => inDay(r.expiry))) throw notFound(`expiry ${q.expiry ?? ''} is not listed for ${q.symbol}`);
    open = open.filter((i) => inDay(i.expiry));
    rows = rows.filter((r) => inDay(r.expiry));
  }
  return { stored, rows, open, applied: filter.applied };
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
