/**
 * Where a growing heap goes (pure): a V8 sampling heap profile (HeapProfiler.getSamplingProfile after a full GC)
 * holds the sampled allocations made since sampling started that are STILL ALIVE, each with its allocation stack and
 * an ordinal (allocation order). Bytes retained per allocation site (the innermost `depth` frames of the project's own
 * code; node_modules and Node internals skipped), split into allocations of the first and of the second half of the
 * window: memory that only churns (caches replaced every 30 s) is retained from the second half, memory that
 * accumulates is retained from the first half as well.
 */
export interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children: readonly ProfileNode[];
}

export interface SamplingProfile {
  readonly head: ProfileNode;
  readonly samples: readonly { readonly size: number; readonly nodeId: number; readonly ordinal: number }[];
}

export interface RetainedSite {
  /** Innermost project frames, outermost first: `function file:line < …`. */
  readonly site: string;
  /** Bytes retained that were allocated in the first / second half of the window (by ordinal). */
  readonly earlyBytes: number;
  readonly lateBytes: number;
}

/** A frame as `function path:line`, the path relative to `root`; null for frames outside the project. */
function frameOf(n: ProfileNode, root: string): string | null {
  const url = n.callFrame.url.replace(/^file:\/\//, '');
  if (url === '' || url.startsWith('node:') || url.includes('/node_modules/') || !url.startsWith(root)) return null;
  // Line 0 is what V8 reports for many functions of transpiled (tsx) modules: no line rather than a wrong one.
  const line = n.callFrame.lineNumber > 0 ? `:${n.callFrame.lineNumber + 1}` : '';
  return `${n.callFrame.functionName === '' ? '(anonymous)' : n.callFrame.functionName} ${url.slice(root.length)}${line}`;
}

/** Retained bytes per allocation site, largest first (at most `top`). */
export function retainedSites(profile: SamplingProfile, root: string, depth = 4, top = 15): RetainedSite[] {
  const stacks = new Map<number, readonly string[]>();
  const walk = (n: ProfileNode, stack: readonly string[]): void => {
    const f = frameOf(n, root);
    const s = f === null ? stack : [...stack, f];
    stacks.set(n.id, s);
    for (const c of n.children) walk(c, s);
  };
  walk(profile.head, []);
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const s of profile.samples) {
    lo = Math.min(lo, s.ordinal);
    hi = Math.max(hi, s.ordinal);
  }
  const middle = lo + (hi - lo) / 2;
  const bySite = new Map<string, { earlyBytes: number; lateBytes: number }>();
  for (const s of profile.samples) {
    const frames = stacks.get(s.nodeId) ?? [];
    const site = frames.length === 0 ? '(outside the project)' : frames.slice(-depth).join(' < ');
    let e = bySite.get(site);
    if (e === undefined) bySite.set(site, (e = { earlyBytes: 0, lateBytes: 0 }));
    if (s.ordinal < middle) e.earlyBytes += s.size;
    else e.lateBytes += s.size;
  }
  return [...bySite]
    .map(([site, e]) => ({ site, ...e }))
    .sort((a, b) => b.earlyBytes + b.lateBytes - (a.earlyBytes + a.lateBytes))
    .slice(0, top);
}
