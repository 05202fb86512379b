/**
 * When the test process is ended from outside (the test runner's per-file timeout sends SIGTERM; Ctrl-C), its
 * `finally` blocks never run: without this, the roles, the sandbox process and the private brokers would outlive it.
 * On SIGTERM/SIGINT it SIGKILLs its own child processes (found by parent pid in /proc) and the brokers whose pid
 * files lie under the work directory, then exits. Only processes this test started are signalled.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { STAT_FIELD, statFields } from '#platform/threads/proc-stat.ts';

function childPids(): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(statFields(readFileSync(`/proc/${entry}/stat`, 'utf8'))[STAT_FIELD.ppid]);
      if (ppid === process.pid) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function brokerPids(workDir: string): number[] {
  if (!existsSync(workDir)) return [];
  return readdirSync(workDir)
    .map((d) => join(workDir, d, 'kafka.pid'))
    .filter((f) => existsSync(f))
    .map((f) => Number(readFileSync(f, 'utf8').trim()))
    .filter((pid) => Number.isInteger(pid) && pid > 0);
}

/** Installs the handlers; the returned function removes them (call it once the run cleaned up by itself). */
export function killChildrenOnSignal(workDir: string): () => void {
  const onSignal = (signal: NodeJS.Signals): void => {
    for (const pid of [...childPids(), ...brokerPids(workDir)]) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  return () => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  };
}
