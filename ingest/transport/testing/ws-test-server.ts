import { WebSocketServer, type WebSocket } from 'ws';
import type { AddressInfo } from 'node:net';

/** A real local WebSocket server for the client tests (127.0.0.1, ephemeral port). Test helper only. */
export interface TestWsServer {
  readonly url: string;
  readonly wss: WebSocketServer;
  /** Every connection accepted, in order. */
  readonly sockets: WebSocket[];
  /** Text frames received, per connection index. */
  readonly received: string[][];
  waitFor(pred: () => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startTestWsServer(onConnection?: (ws: WebSocket, index: number) => void): Promise<TestWsServer> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const sockets: WebSocket[] = [];
  const received: string[][] = [];
  wss.on('connection', (ws) => {
    const i = sockets.length;
    sockets.push(ws);
    received.push([]);
    ws.on('message', (d) => received[i]?.push(d.toString()));
    onConnection?.(ws, i);
  });
  const port = (wss.address() as AddressInfo).port;
  return {
    url: `ws://127.0.0.1:${port}`,
    wss,
    sockets,
    received,
    waitFor: (pred, timeoutMs = 5000) => waitFor(pred, timeoutMs),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of wss.clients) s.terminate();
        wss.close(() => resolve());
      }),
  };
}

export async function waitFor(pred: () => boolean, timeoutMs = 5000): Promise<void> {
  const start = Date.now();
  while (!pred()) {
    if (Date.now() - start > timeoutMs) throw new Error(`waitFor timed out after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
