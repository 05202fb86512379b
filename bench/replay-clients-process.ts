/**
 * Child process of the replay bench (bench/replay.ts): replay clients that read as fast as they can, counting what
 * they receive without parsing it (the closing message only).
 * - NDJSON: GET {base}/v2/replay?channels&from&to over node:http, counting bytes and lines; the last line is the
 *   `replay_done` line.
 * - WebSocket: connect to {base}/v2/ws with X-API-Key, wait for the welcome (a result with id null), send
 *   `public/replay` {channels, from, to, speed: "max"}, count `replay` notifications until `replay_done`.
 * IPC: {cmd:'start', transport, base, keys, channels, from, to} starts one replay per key (replies at once);
 * {cmd:'progress'} -> totals so far; {cmd:'wait'} -> the results once every replay ended; {cmd:'stop'} ends every
 * replay still running (the stream closed, the socket closed) and replies with the results.
 */
import { get, type ClientRequest } from 'node:http';
import { WebSocket } from 'ws';

export type Transport = 'ndjson' | 'ws';

export interface StartCommand {
  readonly cmd: 'start';
  readonly transport: Transport;
  /** http://host:port */
  readonly base: string;
  readonly keys: readonly string[];
  readonly channels: readonly string[];
  readonly from: string;
  readonly to: string;
}
type Command = StartCommand | { readonly cmd: 'progress' } | { readonly cmd: 'wait' } | { readonly cmd: 'stop' };

/** One replay's figures: messages (lines or notifications, the closing one excluded), bytes, ms from request to end. */
export interface ReplayResult {
  messages: number;
  bytes: number;
  ms: number;
  /** completed, stopped, failed (from replay_done), aborted (stopped by the bench), error: ..., unsupported: ... */
  status: string;
  counts: Record<string, number> | null;
}

interface Running {
  readonly result: ReplayResult;
  readonly done: Promise<void>;
  abort(): void;
}

let running: Running[] = [];
const send = (m: unknown): void => void process.send?.(m);

function ndjson(c: StartCommand, key: string): Running {
  const result: ReplayResult = { messages: 0, bytes: 0, ms: 0, status: 'running', counts: null };
  const t0 = performance.now();
  const q = new URLSearchParams({ channels: c.channels.join(','), from: c.from, to: c.to });
  let req: ClientRequest | null = null;
  let tail = '';
  let aborted = false;
  const done = new Promise<void>((resolve) => {
    const finish = (status: string): void => {
      if (result.status !== 'running') return;
      result.ms = performance.now() - t0;
      result.status = aborted ? 'aborted' : status;
      resolve();
    };
    req = get(`${c.base}/v2/replay?${q.toString()}`, { headers: { 'x-api-key': key } }, (res) => {
      if (res.statusCode !== 200) finish(`error: HTTP ${res.statusCode ?? 0}`);
      res.on('data', (b: Buffer) => {
        result.bytes += b.length;
        for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) result.messages++;
        tail = (tail + b.toString('utf8', Math.max(0, b.length - 4096))).slice(-4096);
      });
      res.on('end', () => {
        const last = tail.trimEnd().split('\n').pop() ?? '';
        const done = last.startsWith('{"type":"replay_done"') ? (JSON.parse(last) as { counts: Record<string, number> }) : null;
        result.counts = done?.counts ?? null;
        if (done !== null) result.messages--;
        finish(done !== null ? 'completed' : 'error: no replay_done line');
      });
      res.on('error', (err) => finish(`error: ${err.message}`));
      res.on('close', () => finish('error: closed before the end'));
    });
    req.on('error', (err) => finish(`error: ${err.message}`));
  });
  const abort = (): void => {
    aborted = true;
    req?.destroy();
  };
  return { result, done, abort };
}

const REPLAY = '{"jsonrpc":"2.0","method":"replay",';
const DONE = '{"jsonrpc":"2.0","method":"replay_done"';
const REPLAY_BYTES = Buffer.from(REPLAY, 'latin1');
/** The message starts with `prefix` (compared as bytes: no string made per message). */
const startsWith = (data: Buffer, prefix: Buffer): boolean =>
  data.length >= prefix.length && data.compare(prefix, 0, prefix.length, 0, prefix.length) === 0;

function ws(c: StartCommand, key: string): Running {
  const result: ReplayResult = { messages: 0, bytes: 0, ms: 0, status: 'running', counts: null };
  const t0 = performance.now();
  const socket = new WebSocket(`${c.base.replace(/^http/, 'ws')}/v2/ws`, { headers: { 'X-API-Key': key }, perMessageDeflate: false });
  const done = new Promise<void>((resolve) => {
    const finish = (status: string): void => {
      if (result.status !== 'running') return;
      result.ms = performance.now() - t0;
      result.status = status;
      socket.close(1000);
      resolve();
    };
    let welcomed = false;
    socket.on('message', (data: Buffer) => {
      result.bytes += data.length;
      if (startsWith(data, REPLAY_BYTES)) {
        result.messages++;
        return;
      }
      const head = data.toString('latin1', 0, 48);
      const m = JSON.parse(data.toString('utf8')) as {
        id?: unknown;
        error?: { message: string };
        params?: { status?: string; counts?: Record<string, number> };
      };
      if (!welcomed) {
        welcomed = true;
        const params = { channels: c.channels, from: c.from, to: c.to, speed: 'max' };
        socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'public/replay', params }));
      } else if (m.error !== undefined) {
        finish(
          m.error.message.includes('not available') || m.error.message.includes('unknown method')
            ? 'unsupported'
            : `error: ${m.error.message}`,
        );
      } else if (head.startsWith(DONE)) {
        result.counts = m.params?.counts ?? null;
        finish(m.params?.status ?? 'completed');
      }
    });
    socket.on('close', (code: number) => finish(code === 1000 || code === 1005 ? 'aborted' : `error: closed ${code}`));
    socket.on('error', (err: Error) => finish(`error: ${err.message}`));
  });
  return { result, done, abort: () => socket.close(1000) };
}

const totals = () => ({
  messages: running.reduce((n, r) => n + r.result.messages, 0),
  bytes: running.reduce((n, r) => n + r.result.bytes, 0),
});

process.on('message', (m: Command) => {
  if (m.cmd === 'start') {
    running = m.keys.map((key) => (m.transport === 'ndjson' ? ndjson(m, key) : ws(m, key)));
    send({ ok: true });
  } else if (m.cmd === 'progress') send(totals());
  else if (m.cmd === 'wait') void Promise.all(running.map((r) => r.done)).then(() => send(running.map((r) => r.result)));
  else {
    for (const r of running) r.abort();
    void Promise.all(running.map((r) => r.done)).then(() => send(running.map((r) => r.result)));
  }
});
