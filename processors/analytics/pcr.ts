/**
 * OI-weighted put/call ratio (/v2/options/pcr): at each point, Σ put open interest / Σ call open interest
 * (coins, over the venues' open contracts); above 1 = more put than call OI; null when there is no call OI.
 * `daily` keeps the last point of each UTC day. Input: per (point, venue) call and put OI. Pure.
 */

export interface OiCell {
  /** Point instant, epoch ms. */
  readonly t: number;
  readonly venue: string;
  readonly callOi: number;
  readonly putOi: number;
}

export interface PcrPoint {
  readonly t: number;
  readonly ratio: number | null;
  readonly call_oi: number;
  readonly put_oi: number;
  /** Per venue, only when requested. */
  readonly exchange_breakdown?: { readonly venue: string; readonly call_oi: number; readonly put_oi: number }[];
}

export function pcrSeries(cells: readonly OiCell[], opts: { readonly daily: boolean; readonly breakdown: boolean }): PcrPoint[] {
  const byT = new Map<number, OiCell[]>();
  for (const c of [...cells].sort((a, b) => a.t - b.t || (a.venue < b.venue ? -1 : a.venue > b.venue ? 1 : 0))) {
    let list = byT.get(c.t);
    if (list === undefined) byT.set(c.t, (list = []));
    list.push(c);
  }
  let times = [...byT.keys()];
  if (opts.daily) {
    const lastOfDay = new Map<number, number>();
    for (const t of times) lastOfDay.set(Math.floor(t / 86_400_000), t);
    times = [...lastOfDay.values()];
  }
  return times.map((t) => {
    const list = byT.get(t) ?? [];
    const call = list.reduce((s, c) => s + c.callOi, 0);
    const put = list.reduce((s, c) => s + c.putOi, 0);
    const point = { t, ratio: call > 0 ? put / call : null, call_oi: call, put_oi: put };
    return opts.breakdown
      ? { ...point, exchange_breakdown: list.map((c) => ({ venue: c.venue, call_oi: c.callOi, put_oi: c.putOi })) }
      : point;
  });
}
