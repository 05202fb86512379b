import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { migratedStore, testApp, userWithKey } from './testing/harness.ts';
import type { ApiInstance } from './types.ts';

/**
 * The HTTP surface against oversize and slow clients, on a listening server (real sockets, not inject): header and
 * body size limits, the slow-headers cut-off (slowloris), idle keep-alive, and the process keeps serving afterwards.
 */

interface RawReply {
  /** Everything the server sent before it closed the connection (or before `waitMs`). */
  readonly text: string;
  /** True when the server closed the connection. */
  readonly closed: boolean;
  readonly ms: number;
}

/** Opens a socket, writes `chunks` (a number = pause in ms), collects the reply until close or `waitMs`. */
function raw(port: number, chunks: readonly (string | number)[], waitMs: number): Promise<RawReply> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket: Socket = connect(port, '127.0.0.1');
    let text = '';
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, closed, ms: performance.now() - started });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('data', (d) => (text += d.toString('latin1')));
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    socket.on('connect', async () => {
      for (const c of chunks) {
        if (done) return;
        if (typeof c === 'number') await new Promise((r) => setTimeout(r, c));
        else socket.write(c);
      }
    });
  });
}

const statusOf = (text: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);

describe('HTTP limits (listening server)', () => {
  let t: Awaited<ReturnType<typeof migratedStore>>;
  let app: ApiInstance;
  let port: number;
  let key: string;

  before(async () => {
    t = await migratedStore();
    key = await userWithKey(t.store, { userId: 'sec', plan: 'enterprise' });
    app = await testApp(t.store, {
      httpMaxHeaderBytes: 4096,
      httpBodyLimitBytes: 1024,
      httpHeadersTimeoutMs: 400,
      httpRequestTimeoutMs: 800,
      httpKeepAliveTimeoutMs: 300,
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as AddressInfo).port;
  });
  after(async () => {
    await app.close();
    await t.dispose();
  });

  const get = (path: string, extra = ''): string => `GET ${path} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n${extra}\r\n`;

  test('a normal request is served on the same server', async () => {
    const r = await raw(port, [get('/v2/meta', 'Connection: close\r\n')], 5000);
    assert.equal(statusOf(r.text), 200);
  });

  test('headers over HTTP_MAX_HEADER_BYTES: 431 and the connection closed; no internals in the reply', async () => {
    const r = await raw(port, [get('/v2/meta', `X-Big: ${'a'.repeat(5000)}\r\n`)], 5000);
    assert.equal(statusOf(r.text), 431);
    assert.ok(r.closed);
    assert.doesNotMatch(r.text, /node_modules|\.ts:\d+|at [A-Za-z]+ \(/);
  });

  test('a body over HTTP_BODY_LIMIT_BYTES: 422 VALIDATION_ERROR naming the limit (the spec has no 413 code)', async () => {
    const body = 'x'.repeat(4000);
    const r = await raw(
      port,
      [
        `POST /v2/meta HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      ],
      5000,
    );
    assert.equal(statusOf(r.text), 422);
    assert.match(r.text, /"code":"VALIDATION_ERROR"/);
    assert.match(r.text, /request body over the size limit \(HTTP_BODY_LIMIT_BYTES\)/);
  });

  test('slow headers (slowloris): cut off after HTTP_HEADERS_TIMEOUT_MS with 408, not held open', async () => {
    const trickle: (string | number)[] = ['GET /v2/meta HTTP/1.1\r\n', 'Host: x\r\n'];
    for (let i = 0; i < 40; i++) trickle.push(100, `X-Slow-${i}: 1\r\n`);
    const r = await raw(port, trickle, 6000);
    assert.ok(r.closed, 'the server closed the slow connection');
    assert.ok(r.ms < 3000, `closed after ${r.ms.toFixed(0)} ms`);
    assert.ok(statusOf(r.text) === 408 || r.text === '', r.text.slice(0, 80));
  });

  test('an idle keep-alive connection is closed after HTTP_KEEP_ALIVE_TIMEOUT_MS', async () => {
    const r = await raw(port, [get('/v2/meta')], 5000);
    assert.equal(statusOf(r.text), 200);
    assert.ok(r.closed, 'closed by the server while idle');
    assert.ok(r.ms < 3000, `closed after ${r.ms.toFixed(0)} ms`);
  });

  test('after all of the above the process still serves', async () => {
    const r = await raw(port, [get('/v2/symbols', 'Connection: close\r\n')], 5000);
    assert.equal(statusOf(r.text), 200);
  });
});
