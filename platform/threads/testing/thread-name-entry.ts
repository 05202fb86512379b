/** Test entry for ts-worker.test.ts: posts the thread's OS name (Linux) and its workerData back. */
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

const comm: string = readFileSync('/proc/thread-self/comm', 'utf8').trim();
parentPort?.postMessage({ comm, workerData: workerData as unknown });
