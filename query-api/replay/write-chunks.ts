/**
 * Writes a replay's text chunks to an HTTP response (or a stream in front of it, gzip) each in its own encoding,
 * waiting for `drain` when the destination is full, and stopping when the response closes: a client that stops
 * reading holds the replay (no chunk is made ahead of its socket), a client that goes away ends it.
 *
 * Why not `reply.send(readable)`: a stream piped to a response is written in the default encoding (UTF-8). The replay
 * batches are strings of one character a byte (batch.ts); written as `latin1` they are copied out as they are, where
 * UTF-8 scans them and Node sizes the write's storage at 3 bytes a character (a 192 KiB allocation per 64 KiB batch;
 * scratch, 2 GB of 64 KiB ASCII chunks over a chunked response: 1.45-1.48 against 1.83-1.89 CPU-s), and a batch with
 * non-ASCII bytes needs no Buffer on the event loop's heap (batch.ts says why that matters).
 */
import type { ServerResponse } from 'node:http';

/** A chunk of the body: its text and the encoding its characters are written in. */
export interface TextChunk {
  readonly text: string;
  readonly encoding: 'latin1' | 'utf8';
}

/** What the chunks are written to: the response itself, or a stream piped to it (gzip). */
export interface ChunkDestination {
  write(text: string, encoding: BufferEncoding): boolean;
  end(): unknown;
  once(event: 'drain', listener: () => void): unknown;
  off(event: 'drain', listener: () => void): unknown;
}

/** Resolves once `out` drains or `res` closes, whichever comes first. */
function drainedOrClosed(out: ChunkDestination, res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      out.off('drain', done);
      res.off('close', done);
      resolve();
    };
    out.once('drain', done);
    res.once('close', done);
  });
}

/**
 * Writes every chunk of `chunks` to `out`, then ends it; returns whether the whole body was written (false: `res`
 * closed first, and `chunks` was ended early). A failure of `chunks` is thrown after `out` is left unended.
 */
export async function writeChunks(chunks: AsyncIterable<TextChunk>, out: ChunkDestination, res: ServerResponse): Promise<boolean> {
  for await (const c of chunks) {
    if (res.destroyed) return false;
    if (!out.write(c.text, c.encoding)) await drainedOrClosed(out, res);
    if (res.destroyed) return false;
  }
  if (res.destroyed) return false;
  out.end();
  return true;
}
