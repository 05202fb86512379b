/**
 * Flow by strike (/v2/tape/flow-by-strike): cumulative aggressor prints per strike in four quadrants
 * (call_buy, call_sell, put_buy, put_sell: the venue-stamped taker side), per venue net_size = sold − bought
 * (coins, calls and puts together), and the venue disagreement over strikes traded by at least two venues.
 * Input: sums per (strike, type, side, venue). Pure.
 */

export interface FlowCell {
  readonly strike: number;
  readonly type: string;
  readonly side: string;
  readonly venue: string;
  /** Coins. */
  readonly size: number;
  readonly premium: number;
  readonly trades: number;
}

export interface Quadrant {
  readonly size: number;
  readonly premium_usd: number;
  readonly trades: number;
}

export interface StrikeFlow {
  readonly strike: number;
  readonly call_buy: Quadrant;
  readonly call_sell: Quadrant;
  readonly put_buy: Quadrant;
  readonly put_sell: Quadrant;
}

export interface VenueNet {
  readonly venue: string;
  readonly bought: number;
  readonly sold: number;
  /** sold − bought, coins. */
  readonly net_size: number;
}

export interface VenueDisagreement {
  /** Strikes with at least two participating venues (a venue without flow on a strike is not a participant). */
  readonly strikes_compared: number;
  /** Of those, strikes where one participant's net_size is > 0 and another's < 0. */
  readonly strikes_disagreeing: number;
  /** disagreeing / compared; null when nothing is compared. */
  readonly share: number | null;
}

export interface FlowByStrike {
  readonly strikes: StrikeFlow[];
  /** Parallel to `strikes`: per venue with flow on the strike, in venue order. */
  readonly by_venue: VenueNet[][];
  readonly venue_disagreement: VenueDisagreement;
}

type QuadrantName = 'call_buy' | 'call_sell' | 'put_buy' | 'put_sell';
const empty = (): { size: number; premium_usd: number; trades: number } => ({ size: 0, premium_usd: 0, trades: 0 });

export function flowByStrike(cells: readonly FlowCell[]): FlowByStrike {
  const sorted = [...cells].sort(
    (a, b) =>
      a.strike - b.strike ||
      (a.venue < b.venue ? -1 : a.venue > b.venue ? 1 : 0) ||
      (a.type < b.type ? -1 : a.type > b.type ? 1 : 0) ||
      (a.side < b.side ? -1 : 1),
  );
  const strikes = new Map<number, Record<QuadrantName, ReturnType<typeof empty>>>();
  const venues = new Map<number, Map<string, { bought: number; sold: number }>>();
  for (const c of sorted) {
    let q = strikes.get(c.strike);
    if (q === undefined) strikes.set(c.strike, (q = { call_buy: empty(), call_sell: empty(), put_buy: empty(), put_sell: empty() }));
    const name = `${c.type === 'put' ? 'put' : 'call'}_${c.side === 'buy' ? 'buy' : 'sell'}` as QuadrantName;
    q[name].size += c.size;
    q[name].premium_usd += c.premium;
    q[name].trades += c.trades;
    let v = venues.get(c.strike);
    if (v === undefined) venues.set(c.strike, (v = new Map()));
    let n = v.get(c.venue);
    if (n === undefined) v.set(c.venue, (n = { bought: 0, sold: 0 }));
    if (c.side === 'buy') n.bought += c.size;
    else n.sold += c.size;
  }
  const out: StrikeFlow[] = [];
  const byVenue: VenueNet[][] = [];
  let compared = 0;
  let disagreeing = 0;
  for (const [strike, q] of strikes) {
    out.push({ strike, ...q });
    const nets = [...(venues.get(strike) ?? new Map<string, { bought: number; sold: number }>())].map(([venue, n]) => ({
      venue,
      bought: n.bought,
      sold: n.sold,
      net_size: n.sold - n.bought,
    }));
    byVenue.push(nets);
    if (nets.length >= 2) {
      compared++;
      if (nets.some((n) => n.net_size > 0) && nets.some((n) => n.net_size < 0)) disagreeing++;
    }
  }
  return {
    strikes: out,
    by_venue: byVenue,
    venue_disagreement: {
      strikes_compared: compared,
      strikes_disagreeing: disagreeing,
      share: compared > 0 ? disagreeing / compared : null,
    },
  };
}
