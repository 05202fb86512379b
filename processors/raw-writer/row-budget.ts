/**
 * A bound on the rows the raw writer holds decoded (gathering for a write or being written): a consumed batch waits
 * for its share before it is decoded, and gives it back once stored or failed. Shares are granted in arrival order;
 * a batch larger than the whole budget is granted when nothing else is held, so every batch gets through.
 */
export class RowBudget {
  private held = 0;
  private readonly queue: { readonly n: number; readonly grant: () => void }[] = [];

  constructor(readonly limit: number) {}

  /** Rows currently granted. */
  get inUse(): number {
    return this.held;
  }

  /** Resolves once `n` rows are granted (at once while they fit and nobody is queued before them). */
  acquire(n: number): Promise<void> {
    if (this.queue.length === 0 && this.fits(n)) {
      this.held += n;
      return Promise.resolve();
    }
    return new Promise((grant) => this.queue.push({ n, grant }));
  }

  release(n: number): void {
    this.held = Math.max(0, this.held - n);
    for (let next = this.queue[0]; next !== undefined && this.fits(next.n); next = this.queue[0]) {
      this.queue.shift();
      this.held += next.n;
      next.grant();
    }
  }

  private fits(n: number): boolean {
    return this.held === 0 || this.held + n <= this.limit;
  }
}
