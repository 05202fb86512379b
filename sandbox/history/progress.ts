/** Progress of a backfill on stderr: a redrawn bar on a TTY, plain lines (every 5 % or 10 s) otherwise. */
export interface ProgressState {
  /** Simulated ms generated so far, of totalMs. */
  readonly doneMs: number;
  readonly totalMs: number;
  /** Events published on the bus / rows stored by the raw writer. */
  readonly published: number;
  readonly stored: number;
  /** Simulated instant reached. */
  readonly atMs: number;
}

export interface Progress {
  update(s: ProgressState): void;
  done(s: ProgressState): void;
}

const WIDTH = 30;

function fmtCount(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return String(n);
}

function fmtDuration(s: number): string {
  if (!Number.isFinite(s) || s < 0) return '?';
  const m = Math.floor(s / 60);
  return m > 0 ? `${m}m${String(Math.round(s % 60)).padStart(2, '0')}s` : `${Math.round(s)}s`;
}

export function describe(s: ProgressState, elapsedS: number): string {
  const f = s.totalMs > 0 ? Math.min(1, s.doneMs / s.totalMs) : 1;
  const at = new Date(s.atMs).toISOString().slice(0, 16).replace('T', ' ');
  const rate = elapsedS > 0 ? s.stored / elapsedS : 0;
  const eta = f > 0 ? (elapsedS / f) * (1 - f) : Number.NaN;
  return `${(f * 100).toFixed(1).padStart(5)}%  ${at} UTC  published ${fmtCount(s.published)}  stored ${fmtCount(s.stored)} (${fmtCount(Math.round(rate))}/s)  ETA ${fmtDuration(eta)}`;
}

export function createProgress(out: NodeJS.WriteStream = process.stderr, now: () => number = Date.now): Progress {
  const start = now();
  const tty = out.isTTY === true;
  let lastLine = 0;
  let lastPct = -5;
  const elapsed = (): number => (now() - start) / 1000;
  return {
    update(s) {
      const f = s.totalMs > 0 ? s.doneMs / s.totalMs : 1;
      if (tty) {
        if (now() - lastLine < 100) return;
        lastLine = now();
        const filled = Math.round(Math.min(1, f) * WIDTH);
        out.write(`\r[${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${describe(s, elapsed())}\x1b[K`);
        return;
      }
      if (f * 100 - lastPct >= 5 || now() - lastLine >= 10_000) {
        lastPct = Math.floor(f * 20) * 5;
        lastLine = now();
        out.write(`backfill ${describe(s, elapsed())}\n`);
      }
    },
    done(s) {
      const line = `backfill done in ${fmtDuration(elapsed())}: ${s.published} events published, ${s.stored} rows stored`;
      out.write(tty ? `\r[${'#'.repeat(WIDTH)}] ${describe(s, elapsed())}\x1b[K\n${line}\n` : `${line}\n`);
    },
  };
}
