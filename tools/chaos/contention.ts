/**
 * CPU contention for a chaos campaign: K child processes, each spinning one core until stopped, so the product's
 * processes run as on a busy machine (timers late, batches slow) and timing-dependent failures surface.
 */
import { spawn, type ChildProcess } from 'node:child_process';

/** Spins in 200 ms slices and exits once its parent is gone (a campaign killed by Ctrl-C leaves no spinner). */
const SPIN = `const parent = process.ppid;
for (;;) {
  const t = Date.now();
  while (Date.now() - t < 200);
  try { process.kill(parent, 0); } catch { process.exit(0); }
}`;

export interface Contention {
  stop(): void;
}

export function startContention(processes: number): Contention {
  const children: ChildProcess[] = [];
  for (let i = 0; i < processes; i++) {
    children.push(spawn(process.execPath, ['-e', SPIN], { stdio: 'ignore' }));
  }
  return {
    stop() {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    },
  };
}
