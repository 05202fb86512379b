/**
 * writeChunks over a real HTTP server and client: each chunk's bytes in its encoding (latin1 text of UTF-8 bytes, and
 * UTF-8 text), through gzip too; chunks are made only as the client reads; a client that goes away ends the chunks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, get, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { createGzip, gunzipSync } from 'node:zlib';
import { writeChunks, type ChunkDestination, type TextChunk } from './write-chunks.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A server whose one route writes `chunks()` with writeChunks; `result` settles with what writeChunks returned. */
async function serve(chunks: () => AsyncIterable<TextChunk>, gzip = false) {
  let settle: (v: boolean | Error) => void = () => {};
  const result = new Promise<boolean | Error>((r) => (settle = r));
  const server = createServer((_req, res: ServerResponse) => {
    res.writeHead(200, gzip ? { 'content-encoding': 'gzip' } : {});
    let out: ChunkDestination = res;
    if (gzip) {
      const zip = createGzip();
      pipeline(zip, res).catch(() => {});
      out = zip;
    }
    writeChunks(chunks(), out, res).then(settle, settle);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const request = () => new Promise<IncomingMessage>((resolve) => get({ host: '127.0.0.1', port, path: '/' }, resolve));
  const bytesOf = async (res: IncomingMessage) => {
    const parts: Buffer[] = [];
    for await (const p of res) parts.push(p as Buffer);
    return Buffer.concat(parts);
  };
  return { result, request, bytesOf, close: () => new Promise((r) => server.close(r)) };
}

// "é€\n" as UTF-8 bytes, one character a byte (as a replay batch holds them), then a UTF-8 line.
const utf8Line = 'é€\n';
const latin1Text = Buffer.from(utf8Line, 'utf8').toString('latin1');
const expected = Buffer.concat([Buffer.from('{"a":1}\n'), Buffer.from(utf8Line, 'utf8'), Buffer.from('{"done":"ü"}\n', 'utf8')]);

async function* mixed(): AsyncGenerator<TextChunk> {
  yield { text: '{"a":1}\n', encoding: 'latin1' };
  yield { text: latin1Text, encoding: 'latin1' };
  yield { text: '{"done":"ü"}\n', encoding: 'utf8' };
}

for (const gzip of [false, true])
  test(`each chunk's bytes in its encoding${gzip ? ', through gzip' : ''}`, async () => {
    const s = await serve(mixed, gzip);
    const body = await s.bytesOf(await s.request());
    assert.deepEqual(gzip ? gunzipSync(body) : body, expected);
    assert.equal(await s.result, true);
    await s.close();
  });

test('chunks are made as the client reads: a paused client holds them, reading again finishes them', async () => {
  const chunk = 'x'.repeat(64 * 1024 - 1) + '\n';
  const N = 400;
  let made = 0;
  const s = await serve(async function* () {
    for (let i = 0; i < N; i++) {
      made++;
      yield { text: chunk, encoding: 'latin1' };
    }
  });
  const res = await s.request();
  res.pause();
  await sleep(300);
  const held = made;
  // What the socket buffers on both sides take (a few MiB at most), far from the 25 MiB of the body.
  assert.ok(held > 0 && held < 100, `made ${held} of ${N} chunks while the client did not read`);
  await sleep(200);
  assert.equal(made, held, 'nothing more is made while the client does not read');
  res.resume();
  const body = await s.bytesOf(res);
  assert.equal(body.length, N * chunk.length);
  assert.equal(made, N);
  assert.equal(await s.result, true);
  await s.close();
});

test('a client that goes away ends the chunks (their finally runs) and the write reports it', async () => {
  let made = 0;
  let ended = false;
  const s = await serve(async function* () {
    try {
      for (;;) {
        made++;
        yield { text: 'y'.repeat(64 * 1024), encoding: 'latin1' };
      }
    } finally {
      ended = true;
    }
  });
  const res = await s.request();
  res.pause();
  await sleep(200);
  res.destroy();
  assert.equal(await s.result, false);
  assert.ok(ended, 'the chunks were ended');
  const after = made;
  await sleep(100);
  assert.equal(made, after);
  await s.close();
});

test('a failure of the chunks is thrown to the caller', async () => {
  const s = await serve(async function* () {
    yield { text: 'a\n', encoding: 'latin1' };
    throw new Error('store down');
  });
  const res = await s.request();
  res.resume();
  const r = await s.result;
  assert.ok(r instanceof Error && r.message === 'store down');
  res.destroy();
  await s.close();
});
