import { Worker } from 'node:worker_threads';

/**
 * Starts a worker thread on a TypeScript module. The product runs its TypeScript through tsx (no build step): under
 * `node --import tsx` and under bin/gex.mjs (tsx's register API) alike, so the worker registers tsx itself before
 * importing its entry instead of inheriting the parent's flags (`execArgv: []`: a parent's --cpu-prof or --inspect
 * stays with the parent).
 */
export function startTsWorker(entry: URL, workerData: unknown, name: string): Worker {
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = [`import { register } from ${JSON.stringify(tsx)};`, 'register();', `await import(${JSON.stringify(entry.href)});`].join(
    '\n',
  );
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`), { workerData, execArgv: [], name });
}
