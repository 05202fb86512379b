import { Worker, type ResourceLimits } from 'node:worker_threads';

/**
 * Starts a worker thread on a TypeScript module. The product runs its TypeScript through tsx (no build step): under
 * `node --import tsx` and under bin/gex.mjs (tsx's register API) alike, so the worker registers tsx itself before
 * importing its entry instead of inheriting the parent's flags (`execArgv: []`: a parent's --cpu-prof or --inspect
 * stays with the parent).
 * On Linux the thread also takes `name` as its OS thread name (first 15 bytes, /proc/thread-self/comm), so `top -H`,
 * `ps -L` and per-thread CPU accounting (/proc/<pid>/task/<tid>/stat) tell it from the event loop's thread.
 * `resourceLimits` bound the thread's V8 heap (node:worker_threads; V8's defaults for what is not given).
 */
export function startTsWorker(entry: URL, workerData: unknown, name: string, resourceLimits?: ResourceLimits): Worker {
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = [
    `try { (await import('node:fs')).writeFileSync('/proc/thread-self/comm', ${JSON.stringify(name.slice(0, 15))}); } catch {}`,
    `import { register } from ${JSON.stringify(tsx)};`,
    'register();',
    `await import(${JSON.stringify(entry.href)});`,
  ].join('\n');
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`), {
    workerData,
    execArgv: [],
    name,
    ...(resourceLimits !== undefined ? { resourceLimits } : {}),
  });
}
