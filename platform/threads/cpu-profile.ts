import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';

export interface CpuProfile {
  /** Ends the profile and writes it to the path it was started with. */
  stop(): Promise<void>;
}

/**
 * Samples the calling thread's JavaScript every `intervalUs` through an inspector session on that thread, for `path`
 * (written on stop: V8's `.cpuprofile` JSON, read by Chrome DevTools and speedscope). For a worker
 * thread this is the way to profile it: `node --cpu-prof` writes a profile only for a thread that exits by itself,
 * not for one ended with `worker.terminate()`.
 */
export async function startCpuProfile(path: string, intervalUs = 1000): Promise<CpuProfile> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: intervalUs });
  await session.post('Profiler.start');
  return {
    async stop() {
      try {
        const { profile } = await session.post('Profiler.stop');
        await writeFile(path, JSON.stringify(profile));
      } finally {
        session.disconnect();
      }
    },
  };
}
