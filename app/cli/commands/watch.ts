import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { WebSocket } from 'ws';
import type { CliCommand } from '../command.ts';

export interface WatchOptions {
  readonly url: string;
  readonly key: string;
  readonly channels: readonly string[];
  /** Stop after this many channel notifications (undefined = until closed or interrupted). */
  readonly count?: number;
  readonly write: (line: string) => void;
  readonly signal?: AbortSignal;
  /** Certificates trusted for wss:// (default: Node's root certificates). */
  readonly ca?: readonly (string | Buffer)[];
}

/**
 * Connects to /v2/ws with the key, subscribes, and writes every message from the server as one JSON line.
 * Resolves with the exit code: 0 when `count` notifications arrived or the watch was aborted, 1 when the
 * server closed the session or refused the subscription.
 */
export function watchChannels(o: WatchOptions): Promise<{ code: number; closeCode?: number; reason?: string }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(o.url, { headers: { 'X-API-Key': o.key }, ...(o.ca !== undefined ? { ca: [...o.ca] } : {}) });
    let seen = 0;
    let done = false;
    const finish = (r: { code: number; closeCode?: number; reason?: string }): void => {
      if (done) return;
      done = true;
      ws.close(1000);
      resolve(r);
    };
    o.signal?.addEventListener('abort', () => finish({ code: 0 }));
    ws.on('open', () => ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'public/subscribe', params: { channels: o.channels } })));
    ws.on('message', (data: Buffer) => {
      if (done) return;
      const text = data.toString('utf8');
      o.write(text);
      const m = JSON.parse(text) as { id?: unknown; method?: string; error?: unknown };
      if (m.id === 1 && m.error !== undefined) return finish({ code: 1 });
      if (m.method === 'subscription' && o.count !== undefined && ++seen >= o.count) finish({ code: 0 });
    });
    ws.on('close', (closeCode: number, reason: Buffer) => finish({ code: 1, closeCode, reason: reason.toString('utf8') }));
    ws.on('error', (err) => finish({ code: 1, reason: err.message }));
  });
}

/** Node's root certificates plus the PEM file (when readable). */
function trustedWith(certFile: string | undefined): (string | Buffer)[] | undefined {
  try {
    return certFile === undefined ? undefined : [...rootCertificates, readFileSync(certFile)];
  } catch {
    return undefined;
  }
}

/** `gex watch CHANNEL... --key K [--url URL] [--count N]`: the WebSocket feed as JSON lines on stdout. */
export const watchCommand: CliCommand = {
  name: 'watch',
  usage: 'watch CHANNEL... --key K [--url ws[s]://HOST:PORT/v2/ws] [--count N]',
  summary: 'Print /v2/ws messages (e.g. tape.BTCUSDT, levels.BTCUSDT.deribit) as JSON lines.',
  async run({ config, positionals, flags }) {
    const key = flags.get('key') ?? process.env['GEX_API_KEY'];
    if (positionals.length === 0 || key === undefined || key === 'true') {
      process.stderr.write('gex watch: CHANNEL and --key K (or GEX_API_KEY) are required\n');
      return 2;
    }
    const count = flags.has('count') ? Number(flags.get('count')) : undefined;
    if (count !== undefined && !(Number.isInteger(count) && count > 0)) {
      process.stderr.write('gex watch: --count must be a positive integer\n');
      return 2;
    }
    const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
    // With TLS_CERT_FILE the API serves wss://: trust its certificate (self-signed included) besides the usual roots.
    const tls = config.tlsCertFile !== undefined;
    const ca = tls ? trustedWith(config.tlsCertFile) : undefined;
    const ac = new AbortController();
    const onSignal = (): void => ac.abort();
    process.once('SIGINT', onSignal);
    const r = await watchChannels({
      url: flags.get('url') ?? `${tls ? 'wss' : 'ws'}://${host}:${config.port}/v2/ws`,
      ...(ca !== undefined ? { ca } : {}),
      key,
      channels: positionals,
      ...(count !== undefined ? { count } : {}),
      write: (l) => process.stdout.write(`${l}\n`),
      signal: ac.signal,
    });
    process.off('SIGINT', onSignal);
    if (r.code !== 0)
      process.stderr.write(`gex watch: closed${r.closeCode !== undefined ? ` ${r.closeCode}` : ''}${r.reason ? `: ${r.reason}` : ''}\n`);
    return r.code;
  },
};
