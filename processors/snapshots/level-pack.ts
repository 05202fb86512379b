/**
 * gex_snapshots.levels_pack: everything levelsFromRows and the coverage need from one venue row (both models),
 * as one base64 string of little-endian Float64 values. A point read on gex_snapshots costs about 0.5 ms per
 * column stream, so a venue-filtered as_of read fetches this one column instead of ~20. Binary Float64 is bit
 * exact (as the JSON shortest round-trip form was). Layout (LEVELS_PACK_VERSION 1), `[a]` = length, then values:
 *
 *   1, spot, perp_price, has_inventory (0/1), instruments_used, skipped_no_iv, dropped_expired, t_floored,
 *   inv_contracts, inv_net, inv_abs, inv_unclipped_net, oi_total,
 *   scope (all expiries), n_near, n_near × (expiry, scope),
 *   n_expiries, n_expiries × (expiry, atm_iv, atm_weight, [strikes], [call_oi], [put_oi])
 *   scope = [strikes] [call_oi] [put_oi] [call_gex_std] [put_gex_std] [call_gex_flow] [put_gex_flow]
 *           [call_gex_flow_abs] [put_gex_flow_abs] [profile_std] [profile_std_slope] [profile_flow] [profile_flow_slope]
 *
 * NaN stands for null (perp_price, atm_iv), as the former JSON columns turned NaN into null.
 */
import { endianness } from 'node:os';
import type { ExpiryStat, NearExpiryBlock, ScopeBlock, VenueSnapshotRow } from '../analytics/snapshot-row.ts';
import type { InventoryStats } from './inventory-stats.ts';

export const LEVELS_PACK_VERSION = 1;

/** The packed part of a venue row: the VenueSnapshotRow minus identity and grid, plus inventory statistics. */
export type PackedLevels = Omit<VenueSnapshotRow, 'symbol' | 'venue' | 'computed_at' | 'grid_min' | 'grid_step' | 'grid_points'> &
  InventoryStats;

const SCOPE_ARRAYS = [
  'strikes',
  'call_oi',
  'put_oi',
  'call_gex_std',
  'put_gex_std',
  'call_gex_flow',
  'put_gex_flow',
  'call_gex_flow_abs',
  'put_gex_flow_abs',
  'profile_std',
  'profile_std_slope',
  'profile_flow',
  'profile_flow_slope',
] as const satisfies readonly (keyof ScopeBlock)[];

if (endianness() !== 'LE') throw new Error('levels_pack: little-endian platform required');

const orNaN = (x: number | null): number => x ?? Number.NaN;
const orNull = (x: number): number | null => (Number.isNaN(x) ? null : x);

export function encodeLevelsPack(r: PackedLevels): string {
  const out: number[] = [LEVELS_PACK_VERSION, r.spot, orNaN(r.perp_price), r.has_inventory ? 1 : 0, r.instruments_used, r.skipped_no_iv];
  out.push(r.dropped_expired, r.t_floored, r.inv_contracts, r.inv_net, r.inv_abs, r.inv_unclipped_net, r.oi_total);
  const arr = (a: readonly number[]): void => {
    out.push(a.length);
    for (const x of a) out.push(x);
  };
  const scope = (s: ScopeBlock): void => {
    for (const k of SCOPE_ARRAYS) arr(s[k]);
  };
  scope(r);
  out.push(r.near.length);
  for (const n of r.near) {
    out.push(n.expiry);
    scope(n);
  }
  out.push(r.expiries.length);
  for (const e of r.expiries) {
    out.push(e.expiry, orNaN(e.atm_iv), e.atm_weight);
    arr(e.strikes);
    arr(e.call_oi);
    arr(e.put_oi);
  }
  return Buffer.from(Float64Array.from(out).buffer).toString('base64');
}

class Reader {
  private i = 0;
  constructor(private readonly v: Float64Array) {}
  num(): number {
    const x = this.v[this.i++];
    if (x === undefined) throw new Error('levels_pack: truncated');
    return x;
  }
  arr(): number[] {
    const n = this.num();
    const end = this.i + n;
    if (end > this.v.length) throw new Error('levels_pack: truncated');
    // A preallocated copy loop: Array.from(subarray) measured ~12x slower on these short arrays.
    const a = new Array<number>(n);
    const v = this.v;
    for (let k = 0, j = this.i; k < n; k++, j++) a[k] = v[j] as number;
    this.i = end;
    return a;
  }
  scope(): ScopeBlock {
    const s: Partial<Record<(typeof SCOPE_ARRAYS)[number], number[]>> = {};
    for (const k of SCOPE_ARRAYS) s[k] = this.arr();
    return s as ScopeBlock;
  }
  get done(): boolean {
    return this.i === this.v.length;
  }
}

/**
 * The decoded bytes of the pack being read: one buffer reused by every decode (grown to the largest pack), since the
 * Reader copies every value out. A Buffer and a Float64Array per row were two allocations outside the JS heap per
 * venue row, which a levels replay makes ~4,000 times a second.
 */
let scratch = Buffer.allocUnsafeSlow(64 * 1024);

function scratchOf(bytes: number): Buffer {
  if (bytes > scratch.byteLength) scratch = Buffer.allocUnsafeSlow(Math.max(bytes, scratch.byteLength * 2));
  return scratch;
}

function floatsOf(into: Buffer, n: number): Float64Array {
  if (n % 8 !== 0) throw new Error('levels_pack: not a whole number of Float64 values');
  // allocUnsafeSlow: the buffer owns its ArrayBuffer from offset 0, so the view is aligned.
  return new Float64Array(into.buffer, 0, n / 8);
}

/** A venue row's packed levels from the base64 text stored in gex_snapshots.levels_pack. */
export function decodeLevelsPack(b64: string): PackedLevels {
  // base64 decodes to at most 3 bytes per 4 characters.
  const into = scratchOf(Math.ceil(b64.length / 4) * 3);
  return readPack(floatsOf(into, into.write(b64, 0, 'base64')));
}

/**
 * A venue row's packed levels from the decoded bytes (`base64Decode(levels_pack)` read by the store): no base64 text
 * is made on this side. The bytes may sit at any offset of their buffer (a value of a result's bytes): they are
 * copied into an aligned one first.
 */
export function decodeLevelsPackBytes(bytes: Uint8Array): PackedLevels {
  const into = scratchOf(bytes.byteLength);
  into.set(bytes, 0);
  return readPack(floatsOf(into, bytes.byteLength));
}

function readPack(v: Float64Array): PackedLevels {
  const r = new Reader(v);
  const version = r.num();
  if (version !== LEVELS_PACK_VERSION) throw new Error(`levels_pack: unknown version ${version}`);
  const spot = r.num();
  const perp_price = orNull(r.num());
  const has_inventory = r.num() === 1;
  const [instruments_used, skipped_no_iv, dropped_expired, t_floored] = [r.num(), r.num(), r.num(), r.num()];
  const [inv_contracts, inv_net, inv_abs, inv_unclipped_net, oi_total] = [r.num(), r.num(), r.num(), r.num(), r.num()];
  const all = r.scope();
  const near: NearExpiryBlock[] = Array.from({ length: r.num() }, () => ({ expiry: r.num(), ...r.scope() }));
  const expiries: ExpiryStat[] = Array.from({ length: r.num() }, () => ({
    expiry: r.num(),
    atm_iv: orNull(r.num()),
    atm_weight: r.num(),
    strikes: r.arr(),
    call_oi: r.arr(),
    put_oi: r.arr(),
  }));
  if (!r.done) throw new Error('levels_pack: trailing values');
  return {
    spot,
    perp_price,
    has_inventory,
    instruments_used,
    skipped_no_iv,
    dropped_expired,
    t_floored,
    ...all,
    near,
    expiries,
    inv_contracts,
    inv_net,
    inv_abs,
    inv_unclipped_net,
    oi_total,
  };
}
