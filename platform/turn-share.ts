/**
 * One share of each event-loop turn for many background loops together (the replays of an API process): at most one
 * loop works in a turn, for at most `sliceMs` of work or `sliceBytes` of output, then the turn is handed on and the
 * next waiting loop gets the next turn (first come, first served). Whatever else the turn has to do (timers,
 * sockets, live notifications) runs between two shares, so twenty replays cost the loop what one does per turn;
 * with a slice per loop (time-slice.ts) each of them could take its own slice in the same turn.
 *
 * A loop calls `pass(owner, bytes)` after each unit of work (`owner` any object that stands for the loop, `bytes`
 * what the unit wrote): it returns at once while the owner holds the turn and its share is not used up; otherwise it
 * waits for a turn of the owner's own.
 */
export const DEFAULT_SHARE_MS = 2;
export const DEFAULT_SHARE_BYTES = 128 * 1024;

export class TurnShare {
  #holder: object | null = null;
  #since = 0;
  #bytes = 0;
  readonly #waiting: { readonly owner: object; readonly resolve: () => void }[] = [];
  #scheduled = false;

  constructor(
    private readonly sliceMs = DEFAULT_SHARE_MS,
    private readonly sliceBytes = DEFAULT_SHARE_BYTES,
  ) {}

  /** Loops waiting for a turn. */
  get waiting(): number {
    return this.#waiting.length;
  }

  async pass(owner: object, bytes = 0): Promise<void> {
    if (this.#holder === null && this.#waiting.length === 0) this.#hold(owner);
    if (this.#holder === owner) {
      this.#bytes += bytes;
      if (performance.now() - this.#since < this.sliceMs && this.#bytes < this.sliceBytes) return;
      this.#holder = null;
    }
    await new Promise<void>((resolve) => {
      this.#waiting.push({ owner, resolve });
      this.#schedule();
    });
  }

  #hold(owner: object): void {
    this.#holder = owner;
    this.#since = performance.now();
    this.#bytes = 0;
    // The share ends with the turn, whether or not the holder used it up.
    this.#schedule();
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => this.#turn());
  }

  #turn(): void {
    this.#scheduled = false;
    this.#holder = null;
    const next = this.#waiting.shift();
    if (next === undefined) return;
    this.#hold(next.owner);
    next.resolve();
  }
}
