/** A real `ws` client for the feed tests: collects JSON messages, waits for one matching a predicate, reports the close. */
import { WebSocket } from 'ws';

export interface FeedMessage {
  readonly jsonrpc: '2.0';
  readonly id?: string | number | null;
  readonly method?: string;
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown };
  readonly params?: { readonly channel?: string; readonly seq?: number; readonly data?: unknown; readonly type?: string };
}

export interface TestClient {
  readonly ws: WebSocket;
  readonly messages: FeedMessage[];
  readonly closed: Promise<{ code: number; reason: string }>;
  /** The first message (already received or coming) that matches, else rejects after timeoutMs. */
  next(match: (m: FeedMessage) => boolean, timeoutMs?: number): Promise<FeedMessage>;
  request(id: number, method: string, params?: Record<string, unknown>): Promise<FeedMessage>;
  notifications(channel: string): FeedMessage[];
}

export function connectClient(url: string, key?: string): Promise<TestClient> {
  const ws = new WebSocket(url, key === undefined ? {} : { headers: { 'X-API-Key': key } });
  const messages: FeedMessage[] = [];
  const waiters = new Set<{ match: (m: FeedMessage) => boolean; resolve: (m: FeedMessage) => void }>();
  ws.on('message', (data: Buffer) => {
    const m = JSON.parse(data.toString('utf8')) as FeedMessage;
    messages.push(m);
    for (const w of [...waiters]) {
      if (w.match(m)) {
        waiters.delete(w);
        w.resolve(m);
      }
    }
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once('close', (code: number, reason: Buffer) => resolve({ code, reason: reason.toString('utf8') })),
  );
  ws.on('error', () => undefined);
  const next = (match: (m: FeedMessage) => boolean, timeoutMs = 5_000): Promise<FeedMessage> => {
    const seen = messages.find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const w = {
        match,
        resolve: (m: FeedMessage) => {
          clearTimeout(t);
          resolve(m);
        },
      };
      const t = setTimeout(() => {
        waiters.delete(w);
        reject(new Error(`no matching message in ${timeoutMs} ms; got ${JSON.stringify(messages.slice(-3))}`));
      }, timeoutMs);
      waiters.add(w);
    });
  };
  const client: TestClient = {
    ws,
    messages,
    closed,
    next,
    request(id, method, params = {}) {
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      return next((m) => m.id === id);
    },
    notifications: (channel) => messages.filter((m) => m.method === 'subscription' && m.params?.channel === channel),
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(client));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    ws.once('error', reject);
  });
}
