/**
 * Shared by the greek-exposure routes: the snapshot instant (latest completed snapshot, or the newest at or before
 * `as_of`, never after, bounded by the plan window — the /v2/gex/levels semantics), the chain of that instant
 * (rebuilt from the raw tables as the snapshot processor saw it, memoized per (symbol, instant)), the venue
 * filter and the expiry selection (404 when not listed), and the meta of the answer.
 */
import type { FastifyRequest } from 'fastify';
import { prepareChain } from '../../../processors/analytics/gex.ts';
import type { OpenInstrument } from '../../../processors/analytics/gex.ts';
import type { ChainSnapshot, DealerModel } from '../../../processors/analytics/types.ts';
import { chainAsOf } from '../../../processors/snapshots/chain-as-of.ts';
import type { MarketSymbol } from '../../../schemas/events.ts';
import type { MetaFields } from '../../envelope.ts';
import { notFound } from '../../errors.ts';
import { latestSnapshotTime, snapshotTimeAtOrBefore } from '../../snapshots/snapshot-reads.ts';
import type { AppContext } from '../../types.ts';
import { parseExpiry, venueFilter } from '../gex/params.ts';
import { asOfMeta, resolveInstant } from '../gex/point-in-time.ts';
import type { ResolvedInstant } from '../gex/point-in-time.ts';
import { positioningMeta } from '../gex/positioning.ts';
import { gexMeta } from '../gex/respond.ts';

const DAY_MS = 86_400_000;
const MEMO_SIZE = 16;

export interface GreekInstant {
  readonly t: number;
  readonly asOf?: { readonly requested: string; readonly servedMs: number; readonly history: ResolvedInstant['history'] };
}

/** Latest: the cached snapshot (or the newest stored); as_of: newest at or before the clamped instant. */
export async function resolveGreekInstant(ctx: AppContext, request: FastifyRequest, symbol: MarketSymbol, asOf: string | undefined): Promise<GreekInstant> {
  if (asOf === undefined) {
    const t = ctx.snapshots?.get(symbol)?.meta.computed_at ?? (await latestSnapshotTime(ctx.store, symbol));
    if (t === null || t === undefined) throw notFound(`no snapshot for ${symbol} yet`);
    return { t };
  }
  const r = resolveInstant(ctx, request, asOf);
  const t = await snapshotTimeAtOrBefore(ctx.store, symbol, r.servedMs);
  if (t === null) throw notFound(`no snapshot for ${symbol} at or before ${new Date(r.servedMs).toISOString()}`);
  return { t, asOf: { requested: r.requested, servedMs: r.servedMs, history: r.history } };
}

export interface PreparedAt {
  readonly chain: ChainSnapshot;
  readonly open: readonly OpenInstrument[];
}

/** Chains per (symbol, instant), most recent MEMO_SIZE kept; a stored instant never changes. */
export class ChainMemo {
  private readonly entries = new Map<string, Promise<PreparedAt | null>>();

  get(ctx: AppContext, symbol: MarketSymbol, t: number): Promise<PreparedAt | null> {
    const key = `${symbol}|${t}`;
    let p = this.entries.get(key);
    if (p === undefined) {
      p = chainAsOf(ctx.store, symbol, t).then((chain) => (chain === null ? null : { chain, open: prepareChain(chain).open }));
      p.catch(() => this.entries.delete(key));
      this.entries.set(key, p);
      if (this.entries.size > MEMO_SIZE) this.entries.delete(this.entries.keys().next().value as string);
    }
    return p;
  }
}

export interface Selection {
  readonly prepared: PreparedAt;
  /** Open instruments of the selected venues (and expiry day). */
  readonly open: readonly OpenInstrument[];
  readonly applied: readonly string[] | undefined;
}

/** Venue filter (the `exchanges` rules) and expiry day (27DEC24 / 2024-12-27; 404 when no open contract has it). */
export async function selectChain(
  ctx: AppContext,
  memo: ChainMemo,
  q: { readonly symbol: MarketSymbol; readonly exchanges?: string | undefined; readonly expiry?: string | undefined },
  t: number,
): Promise<Selection> {
  const prepared = await memo.get(ctx, q.symbol, t);
  if (prepared === null) throw notFound(`no option chain for ${q.symbol} at ${new Date(t).toISOString()}`);
  const filter = venueFilter(q.exchanges);
  const venues = filter.venues === undefined ? null : new Set<string>(filter.venues);
  let open = venues === null ? prepared.open : prepared.open.filter((i) => venues.has(i.venue));
  const day = q.expiry === undefined ? null : parseExpiry(q.expiry);
  if (day !== null) {
    const inDay = prepared.open.some((i) => i.expiry >= day && i.expiry < day + DAY_MS);
    if (!inDay) throw notFound(`expiry ${q.expiry ?? ''} is not listed for ${q.symbol}`);
    open = open.filter((i) => i.expiry >= day && i.expiry < day + DAY_MS);
  }
  return { prepared, open, applied: filter.applied };
}

export function greekMeta(ctx: AppContext, symbol: MarketSymbol, inst: GreekInstant, sel: Selection, requested: DealerModel | null, served: DealerModel | null): MetaFields {
  return gexMeta(ctx.clock(), {
    symbol,
    spotPrice: sel.prepared.chain.spot,
    computedAt: inst.t,
    source: [...new Set(sel.open.map((i) => i.venue))],
    ...(sel.applied !== undefined ? { exchangesFiltered: sel.applied } : {}),
    extra: {
      ...(requested !== null && served !== null ? { positioning: positioningMeta(requested, served, symbol) } : {}),
      ...(inst.asOf !== undefined ? { as_of: asOfMeta(inst.asOf.requested, inst.t, inst.asOf.servedMs) } : {}),
    },
    ...(inst.asOf !== undefined ? { history: inst.asOf.history } : {}),
  });
}
