/** Test entry for ts-worker.test.ts: posts the thread's OS name (Linux), its workerData and its heap's young generation back. */
import { readFileSync } from 'node:fs';
import { parentPort, resourceLimits, workerData } from 'node:worker_threads';

const comm: string = readFileSync('/proc/thread-self/comm', 'utf8').trim();
parentPort?.postMessage({ comm, workerData: workerData as unknown, youngMb: resourceLimits.maxYoungGenerationSizeMb });
