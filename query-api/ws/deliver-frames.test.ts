/**
 * Session.deliverFrames (replay batches) and Session.deliverMany (the feed's runs of notifications) over a real ws
 * server and client: frames written to the socket as they are (no extension), the same messages through `ws` when the
 * session has no socket or the connection negotiated permessage-deflate, and the bound: frames that would take the
 * send buffer over maxBufferedBytes close the session with 4009.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { FeedHub, FrameRun } from './hub.ts';
import { wireFrames } from './frames.ts';
import { Session } from './session.ts';

/** The frames of `texts`, one character a byte (as replay batches carry them). */
const framesOf = (texts: readonly string[]): string => wireFrames(texts.map((t) => Buffer.from(t, 'utf8'))).toString('latin1');

/** `texts` as the hub hands a run of notifications to its subscribers. */
const runOf = (texts: readonly string[]): FrameRun => {
  const frames = texts.map((t) => Buffer.from(t, 'utf8'));
  return new FrameRun(
    frames,
    frames.reduce((n, f) => n + f.length, 0),
  );
};

type Write = 'frames' | 'run';

async function roundTrip(
  opts: { withSocket: boolean; deflate: boolean; maxBufferedBytes?: number; write?: Write },
  texts: readonly string[],
) {
  const server = createServer();
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: opts.deflate });
  const delivered: boolean[] = [];
  server.on('upgrade', (req, socket, head) =>
    wss.handleUpgrade(req, socket, head, (ws) => {
      const session = new Session({
        ws,
        ...(opts.withSocket ? { socket } : {}),
        hub: new FeedHub(),
        maxBufferedBytes: opts.maxBufferedBytes ?? 4 * 2 ** 20,
        heartbeatMs: 3_600_000,
        onEnd: () => undefined,
      });
      if (opts.write === 'run') {
        delivered.push(session.deliverMany(runOf(texts)) === texts.length);
        delivered.push(session.deliverMany(runOf(['last'])) === 1);
      } else {
        delivered.push(session.deliverFrames(framesOf(texts)));
        delivered.push(session.deliverFrames(framesOf(['last'])));
      }
    }),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`, { perMessageDeflate: opts.deflate });
  const received: string[] = [];
  const closed = new Promise<number>((resolve) => client.on('close', (code) => resolve(code)));
  client.on('message', (data: Buffer) => {
    received.push(data.toString('utf8'));
    if (received.length === texts.length + 1) client.close();
  });
  const code = await closed;
  wss.close();
  await new Promise((r) => server.close(r));
  return { received, delivered, code, extensions: client.extensions };
}

const TEXTS = ['{"a":1}', 'é€𝄞', 'x'.repeat(200), 'y'.repeat(70_000)];

for (const write of ['frames', 'run'] as const) {
  const method = write === 'frames' ? 'deliverFrames' : 'deliverMany';

  test(`${method}: written as wire frames, or through ws without the socket or with permessage-deflate`, async () => {
    for (const [withSocket, deflate] of [
      [true, false],
      [false, false],
      [true, true],
    ] as const) {
      const r = await roundTrip({ withSocket, deflate, write }, TEXTS);
      assert.deepEqual(r.received, [...TEXTS, 'last'], `socket ${withSocket}, deflate ${deflate}`);
      assert.deepEqual(r.delivered, [true, true]);
      assert.equal(r.extensions.includes('permessage-deflate'), deflate);
    }
  });

  test(`${method}: frames over the send-buffer bound close the session with 4009, none of them written`, async () => {
    const r = await roundTrip({ withSocket: true, deflate: false, maxBufferedBytes: 1_000, write }, ['z'.repeat(5_000)]);
    assert.equal(r.delivered[0], false);
    assert.equal(r.code, 4009);
    assert.deepEqual(r.received, []);
  });
}

test('FrameRun.wire: the run as unmasked final text frames (7-bit, 16-bit and 64-bit lengths), made once', () => {
  const run = runOf(['ab', 'é'.repeat(100), 'x'.repeat(70_000)]);
  const wire = run.wire();
  assert.equal(run.wire(), wire, 'the same buffer for every subscriber');
  assert.deepEqual([...wire.subarray(0, 4)], [0x81, 2, 0x61, 0x62]);
  assert.deepEqual([...wire.subarray(4, 8)], [0x81, 126, 0, 200]);
  const third = 8 + 200;
  assert.deepEqual([...wire.subarray(third, third + 10)], [0x81, 127, 0, 0, 0, 0, 0, 1, 0x11, 0x70]);
  assert.equal(wire.length, third + 10 + 70_000);
});
