/**
 * Entry of the replay thread (replay-thread.ts): makes the batches of the replays its owner opens (producer.ts's
 * in-thread producer over a PortStore), one batch per `pull`, and lowers its own scheduling priority and its reads'
 * (REPLAY_NICE) so that, on a busy machine, the owner's event loop (requests, the live feed) runs first.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { childLogger } from '#platform/log.ts';
import type { ReplayBatch } from '../batch.ts';
import { inThreadProducer } from '../producer.ts';
import { portStore } from './port-store.ts';
import { batchTransfer, crossingError, type OwnerMessage, type ReplayThreadData, type ThreadMessage } from './protocol.ts';

const port = parentPort;
if (port === null) throw new Error('query-api/replay/thread/worker.ts runs as a worker thread');
const { storeKind, nice } = workerData as ReplayThreadData;
const log = childLogger('replay.thread');
// The store's engine runs the replay's reads at the same niceness (a ClickHouse setting; a no-op without CAP_SYS_NICE).
// The embedded engine runs each on one thread: it shares the API's cores, a replay reads its window in order, page
// after page, and a read split across threads cost the engine half as much CPU again for the same rows (a tape page of
// 10,000 trades read FINAL: ~15 -> ~10 ms of the engine's threads, and no slower), CPU the rendering and the live feed
// need. A server's cores are its own: its reads keep their threads.
const settings = `os_threads_nice_value_query = ${nice}${storeKind === 'embedded' ? ', max_threads = 1' : ''}`;
const store = portStore(port, storeKind, settings);
const producer = inThreadProducer(store);
const replays = new Map<number, AsyncGenerator<ReplayBatch>>();
const post = (m: ThreadMessage, transfer: ArrayBuffer[] = []): void => port.postMessage(m, transfer);

try {
  // On Linux a thread is a task of its own: /proc/thread-self names its id, and setpriority applies to that task.
  const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  if (Number.isInteger(tid) && tid > 0) setPriority(tid, nice);
} catch (err) {
  log.debug({ err }, 'replay thread: priority unchanged');
}

async function pull(id: number): Promise<void> {
  const replay = replays.get(id);
  if (replay === undefined) return;
  try {
    const r = await replay.next();
    if (r.done === true) {
      replays.delete(id);
      post({ kind: 'done', id });
    } else post({ kind: 'batch', id, batch: r.value }, batchTransfer(r.value));
  } catch (err) {
    replays.delete(id);
    post({ kind: 'failed', id, error: crossingError(err) });
  }
}

port.on('message', (m: OwnerMessage) => {
  if (store.answer(m)) return;
  switch (m.kind) {
    case 'open':
      replays.set(m.id, producer.batches(m.request, m.format, m.page));
      return;
    case 'pull':
      void pull(m.id);
      return;
    case 'close': {
      const replay = replays.get(m.id);
      replays.delete(m.id);
      replay?.return(undefined).catch((err: unknown) => log.debug({ err, replay: m.id }, 'replay closed with an error'));
      return;
    }
  }
});
