/**
 * A WebSocket client of /v2/ws for the chaos harness: subscribes, records each live notification (channel, seq,
 * arrival time) and each replay message, runs one replay, and reports how the connection ended.
 */
import { WebSocket } from 'ws';

export interface FeedClient {
  /** Live notifications as they arrived. */
  readonly live: { readonly channel: string; readonly seq: number; readonly at: number }[];
  /** Replay messages received (the last replay). */
  readonly replayed: () => number;
  /** The last replay's replay_done params (null until it ends). */
  readonly replayDone: () => Record<string, unknown> | null;
  readonly closed: Promise<{ code: number; at: number }>;
  /** Sends a request and resolves with its answer (rejects after 10 s). */
  request(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  close(): void;
}

interface Frame {
  readonly id?: number | null;
  readonly method?: string;
  readonly result?: unknown;
  readonly error?: unknown;
  readonly params?: { readonly channel?: string; readonly seq?: number } & Record<string, unknown>;
}

/** Connects with the key in the upgrade header and waits for the welcome. */
export function connectFeed(url: string, key: string): Promise<FeedClient> {
  const ws = new WebSocket(url, { headers: { 'X-API-Key': key } });
  const live: { channel: string; seq: number; at: number }[] = [];
  const waiting = new Map<number, (f: Frame) => void>();
  let replayed = 0;
  let done: Record<string, unknown> | null = null;
  let nextId = 1;
  let welcomed: (() => void) | null = null;
  ws.on('message', (data: Buffer) => {
    const f = JSON.parse(data.toString('utf8')) as Frame;
    if (f.method === 'subscription' && f.params?.channel !== undefined)
      live.push({ channel: f.params.channel, seq: f.params.seq ?? 0, at: Date.now() });
    else if (f.method === 'replay') replayed++;
    else if (f.method === 'replay_done') done = f.params ?? {};
    else if (f.id === null) welcomed?.();
    else if (typeof f.id === 'number') waiting.get(f.id)?.(f);
  });
  ws.on('error', () => undefined);
  const closed = new Promise<{ code: number; at: number }>((resolve) =>
    ws.once('close', (code: number) => resolve({ code, at: Date.now() })),
  );
  const client: FeedClient = {
    live,
    replayed: () => replayed,
    replayDone: () => done,
    closed,
    request(method, params = {}) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`${method}: no answer in 10 s`)), 10_000);
        waiting.set(id, (f) => {
          clearTimeout(t);
          waiting.delete(id);
          if (method === 'public/replay') [replayed, done] = [0, null];
          resolve({ result: f.result, error: f.error });
        });
        ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      });
    },
    close: () => ws.terminate(),
  };
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no welcome from ${url} in 10 s`)), 10_000);
    welcomed = () => {
      clearTimeout(t);
      resolve(client);
    };
    ws.once('close', (code: number) => reject(new Error(`${url} closed with ${code} before the welcome`)));
  });
}

/** Seq gaps of one channel's notifications (a jump of more than 1 between consecutive ones). */
export function seqGaps(live: FeedClient['live'], channel: string): number {
  let gaps = 0;
  let prev: number | null = null;
  for (const n of live) {
    if (n.channel !== channel) continue;
    if (prev !== null && n.seq !== prev + 1) gaps++;
    prev = n.seq;
  }
  return gaps;
}
