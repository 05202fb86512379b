/**
 * The product's live V8 heap, read through the inspector protocol (the soak starts the product with
 * `--inspect=127.0.0.1:0` and reads the WebSocket URL from its stderr): HeapProfiler.collectGarbage, then
 * Runtime.getHeapUsage. Heap used without a forced GC swings by hundreds of MB with the collector's timing (V8
 * lets garbage pile up in old space until its next mark-compact), which hides or fakes a leak. With
 * `--heap-profile`, the same connection runs V8's sampling heap profiler over the measured minutes (retained.ts
 * summarizes what it kept alive).
 */
import WebSocket from 'ws';

/** `Debugger listening on ws://127.0.0.1:PORT/UUID` from the product's stderr, or null. */
export function inspectorUrl(stderrText: string): string | null {
  const m = /Debugger listening on (ws:\/\/[^\s]+)/.exec(stderrText);
  return m === null ? null : (m[1] as string);
}

export class LiveHeap {
  private ws: WebSocket | null = null;
  private id = 0;
  private readonly pending = new Map<number, (result: Record<string, unknown>) => void>();

  constructor(private readonly url: string) {}

  private async socket(): Promise<WebSocket> {
    if (this.ws !== null && this.ws.readyState === WebSocket.OPEN) return this.ws;
    const ws = new WebSocket(this.url);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.on('message', (data) => {
      const msg = JSON.parse(String(data)) as { id?: number; result?: Record<string, unknown> };
      if (msg.id !== undefined) this.pending.get(msg.id)?.(msg.result ?? {});
    });
    this.ws = ws;
    return ws;
  }

  private async call(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const ws = await this.socket();
    const id = ++this.id;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`inspector ${method}: no answer in 30 s`));
      }, 30_000);
      this.pending.set(id, (r) => {
        clearTimeout(timer);
        this.pending.delete(id);
        resolve(r);
      });
      ws.send(JSON.stringify({ id, method, params }));
    });
  }

  /** MB of V8 heap in use right after a full garbage collection. */
  async measureMb(): Promise<number> {
    await this.call('HeapProfiler.collectGarbage');
    const usage = await this.call('Runtime.getHeapUsage');
    return Number(usage['usedSize']) / 1048576;
  }

  /**
   * Starts V8's sampling heap profiler (one sample per ~16 KiB allocated; objects the GC frees leave the profile):
   * what is still in the profile later was allocated after this call and is still alive.
   */
  async startSampling(): Promise<void> {
    await this.call('HeapProfiler.enable');
    await this.call('HeapProfiler.startSampling', { samplingInterval: 16_384 });
  }

  /** After a full GC: the sampled allocations still alive (a `SamplingHeapProfile`), and the profiler stopped. */
  async stopSampling(): Promise<unknown> {
    await this.call('HeapProfiler.collectGarbage');
    const { profile } = await this.call('HeapProfiler.getSamplingProfile');
    await this.call('HeapProfiler.stopSampling');
    return profile;
  }

  close(): void {
    this.ws?.close();
  }
}
