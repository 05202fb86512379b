/** Shared by the parser benchmarks: the frame corpus and the frames-per-second loop. */
export const COPIES = 2000;
export const RUN_MS = 700;

/** `COPIES` copies of the frames, ids made unique (so dedup-by-id paths do real work). */
export function corpus(lines: readonly string[], idPattern: RegExp): string[] {
  const out: string[] = [];
  for (let n = 0; n < COPIES; n++) for (const l of lines) out.push(l.replace(idPattern, (m) => `${m}${n}`));
  return out;
}

/** Frames per second of `fn` over the corpus, looped for `runMs` (default RUN_MS) on this core. */
export function rate<T>(frames: readonly T[], fn: (f: T) => unknown, runMs = RUN_MS): number {
  let sink = 0;
  let done = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < runMs) {
    for (const f of frames) if (fn(f) !== undefined) sink++;
    done += frames.length;
    elapsed = performance.now() - start;
  }
  if (sink < 0) console.log(sink);
  return (done / elapsed) * 1000;
}
