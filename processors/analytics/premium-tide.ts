/**
 * Premium tide (/v2/options/premium-tide): per time bucket the net premium of call and put flow (taker buys −
 * taker sells, USD), the traded notional (buys + sells, USD of underlying), net = call net − put net (positive:
 * bullish flow), and running sums of the three nets from the first bucket. Every bucket of the grid is present
 * (zero when nothing traded). Input: sums per (bucket start, type, taker side). Pure.
 */

export interface TideCell {
  /** Bucket start, epoch ms (a grid point). */
  readonly t: number;
  readonly type: string;
  readonly side: string;
  readonly premium: number;
  readonly notional: number;
}

export interface TidePoint {
  readonly t: number;
  readonly call_net_premium_usd: number;
  readonly put_net_premium_usd: number;
  readonly net_premium_usd: number;
  readonly call_notional_usd: number;
  readonly put_notional_usd: number;
  readonly cum_call_net_premium_usd: number;
  readonly cum_put_net_premium_usd: number;
  readonly cum_net_premium_usd: number;
}

/** Buckets `fromMs, fromMs + stepMs, …` up to and including the one holding `toMs`. */
export function premiumTide(cells: readonly TideCell[], fromMs: number, toMs: number, stepMs: number): TidePoint[] {
  const n = toMs < fromMs ? 0 : Math.floor((toMs - fromMs) / stepMs) + 1;
  const acc = Array.from({ length: n }, () => ({ cn: 0, pn: 0, cv: 0, pv: 0 }));
  for (const c of [...cells].sort((a, b) => a.t - b.t || (a.type < b.type ? -1 : 1) || (a.side < b.side ? -1 : 1))) {
    const i = Math.floor((c.t - fromMs) / stepMs);
    const a = acc[i];
    if (a === undefined) continue;
    const signed = c.side === 'buy' ? c.premium : -c.premium;
    if (c.type === 'put') {
      a.pn += signed;
      a.pv += c.notional;
    } else {
      a.cn += signed;
      a.cv += c.notional;
    }
  }
  let cc = 0;
  let cp = 0;
  return acc.map((a, i) => {
    cc += a.cn;
    cp += a.pn;
    return {
      t: fromMs + i * stepMs,
      call_net_premium_usd: a.cn,
      put_net_premium_usd: a.pn,
      net_premium_usd: a.cn - a.pn,
      call_notional_usd: a.cv,
      put_notional_usd: a.pv,
      cum_call_net_premium_usd: cc,
      cum_put_net_premium_usd: cp,
      cum_net_premium_usd: cc - cp,
    };
  });
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * horizon → window start, bound of the contracts' expiry, bucket size. `0dte`: since 00:00 UTC today,
 * expiry ≤ now + 24 h, 5-minute buckets; `weekly`: since now − 3 days aligned to the hour, expiry ≤ now + 7 days,
 * hourly buckets. Contracts count when their expiry is after the window start.
 */
export function tideWindow(
  horizon: '0dte' | 'weekly',
  now: number,
): { readonly fromMs: number; readonly expiryToMs: number; readonly stepMs: number } {
  if (horizon === '0dte') return { fromMs: now - (now % DAY), expiryToMs: now + DAY, stepMs: 5 * 60_000 };
  const from = now - 3 * DAY;
  return { fromMs: from - (from % HOUR), expiryToMs: now + 7 * DAY, stepMs: HOUR };
}
