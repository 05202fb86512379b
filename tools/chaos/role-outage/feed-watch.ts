/**
 * One WebSocket client of an API's /v2/ws feed for the whole test, subscribed to the trade tape and the GEX levels of
 * every symbol: it records when each notification arrived (and, for levels, the snapshot instant it carries), and
 * whether the server closed the connection.
 */
import { WebSocket } from 'ws';
import { SYMBOLS } from '#schemas/events.ts';

interface Arrival {
  readonly at: number;
  /** levels: the snapshot's computed_at (ms). */
  readonly computedAt?: number;
}

interface Notification {
  readonly method?: string;
  readonly id?: number | null;
  readonly result?: unknown;
  readonly error?: unknown;
  readonly params?: { readonly channel?: string; readonly data?: { readonly computed_at?: string } };
}

export class FeedWatch {
  readonly tape: Arrival[] = [];
  readonly levels: Arrival[] = [];
  closed: { code: number; at: number } | null = null;

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (raw: Buffer) => this.onMessage(JSON.parse(raw.toString('utf8')) as Notification));
    ws.once('close', (code: number) => (this.closed = { code, at: Date.now() }));
  }

  /**
   * Connects to `<apiUrl>/v2/ws` with the key, waits for the welcome (frames sent before it are not read: the server
   * authenticates first) and subscribes; rejects when refused, closed or not answered within 60 s.
   */
  static async open(apiUrl: string, apiKey: string): Promise<FeedWatch> {
    const ws = new WebSocket(`${apiUrl.replace(/^http/, 'ws')}/v2/ws`, { headers: { 'X-API-Key': apiKey } });
    const replies: Notification[] = [];
    const waiters: (() => void)[] = [];
    ws.on('message', (raw: Buffer) => {
      const m = JSON.parse(raw.toString('utf8')) as Notification;
      if (m.method === undefined) replies.push(m);
      for (const w of waiters.splice(0)) w();
    });
    const reply = (match: (m: Notification) => boolean, what: string): Promise<Notification> =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`feed: no ${what} within 60 s`)), 60_000);
        ws.once('close', (code: number) => reject(new Error(`feed: closed (${code}) before the ${what}`)));
        const look = (): void => {
          const m = replies.find(match);
          if (m === undefined) return void waiters.push(look);
          clearTimeout(timer);
          resolve(m);
        };
        look();
      });
    ws.on('error', () => undefined);
    const welcome = await reply((m) => m.id === null && m.result !== undefined, 'welcome');
    if ((welcome.result as { authenticated?: boolean }).authenticated !== true) throw new Error('feed: not authenticated');
    const watch = new FeedWatch(ws);
    const channels = SYMBOLS.flatMap((s) => [`tape.${s}`, `levels.${s}`]);
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'public/subscribe', params: { channels } }));
    const answer = await reply((m) => m.id === 1, 'subscription answer');
    if (answer.error !== undefined) throw new Error(`feed subscription refused: ${JSON.stringify(answer.error)}`);
    return watch;
  }

  /** First tape notification received after `t` (ms), or null. */
  tapeAfter(t: number): number | null {
    return this.tape.find((a) => a.at > t)?.at ?? null;
  }

  /** First levels notification received after `t` carrying a snapshot computed after `t`, or null. */
  levelsAfter(t: number): number | null {
    return this.levels.find((a) => a.at > t && (a.computedAt ?? 0) > t)?.at ?? null;
  }

  close(): void {
    this.ws.close();
  }

  private onMessage(m: Notification): void {
    if (m.method !== 'subscription') return;
    const channel = m.params?.channel ?? '';
    const at = Date.now();
    if (channel.startsWith('tape.')) this.tape.push({ at });
    else if (channel.startsWith('levels.')) {
      const iso = m.params?.data?.computed_at;
      this.levels.push(iso === undefined ? { at } : { at, computedAt: Date.parse(iso) });
    }
  }
}
