import type { FastifyBaseLogger } from 'fastify';
import { keyIdOf, hashKey, sameHash } from './keys.ts';
import type { AccountsRepository, KeyRecord, UserRecord } from './repository.ts';

export interface Account {
  readonly userId: string;
  readonly keyId: string;
  readonly plan: string;
  readonly status: string;
  readonly evaluation: boolean;
}

export type AuthResult =
  | { readonly ok: true; readonly account: Account }
  | { readonly ok: false; readonly reason: 'missing' | 'invalid' };

export interface AccountCacheOptions {
  readonly repository: AccountsRepository;
  readonly keyPrefix: string;
  /** Reload users and keys when the copy is older than this (ms). */
  readonly refreshMs: number;
  readonly clock: () => number;
  readonly log: FastifyBaseLogger;
}

interface Snapshot {
  readonly keysById: ReadonlyMap<string, readonly KeyRecord[]>;
  readonly users: ReadonlyMap<string, UserRecord>;
}

/**
 * In-memory copy of users and API keys. A request that finds the copy older than `refreshMs` reloads it
 * (one load at a time); a failed reload keeps the last good copy and is retried after `refreshMs`. Only the
 * very first load is allowed to fail a request (the store error surfaces as 503).
 */
export class AccountCache {
  private snapshot: Snapshot | undefined;
  private loadedAt = Number.NEGATIVE_INFINITY;
  private inflight: Promise<void> | undefined;

  constructor(private readonly opts: AccountCacheOptions) {}

  async authenticate(value: string | undefined): Promise<AuthResult> {
    if (value === undefined || value === '') return { ok: false, reason: 'missing' };
    const keyId = keyIdOf(this.opts.keyPrefix, value);
    if (keyId === null) return { ok: false, reason: 'invalid' };
    const snap = await this.current();
    const hash = hashKey(value);
    let match: KeyRecord | undefined;
    for (const k of snap.keysById.get(keyId) ?? []) if (sameHash(k.keyHash, hash)) match = k;
    if (match === undefined || match.revokedAt !== null) return { ok: false, reason: 'invalid' };
    const user = snap.users.get(match.userId);
    if (user === undefined) return { ok: false, reason: 'invalid' };
    return { ok: true, account: { userId: user.userId, keyId: match.keyId, plan: user.plan, status: user.status, evaluation: user.evaluation } };
  }

  /** Forces a reload now (used after admin changes and by tests). */
  async refresh(): Promise<void> {
    this.inflight ??= this.load().finally(() => {
      this.inflight = undefined;
    });
    await this.inflight;
  }

  /** Age of the in-memory copy in seconds (null before the first load). */
  ageSeconds(): number | null {
    return this.snapshot === undefined ? null : (this.opts.clock() - this.loadedAt) / 1000;
  }

  private async current(): Promise<Snapshot> {
    if (this.snapshot === undefined) {
      await this.refresh();
    } else if (this.opts.clock() - this.loadedAt >= this.opts.refreshMs) {
      try {
        await this.refresh();
      } catch (err) {
        // Keep serving the last good copy; try again after another refresh period.
        this.loadedAt = this.opts.clock();
        this.opts.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'account cache refresh failed; serving the previous copy');
      }
    }
    return this.snapshot as Snapshot;
  }

  private async load(): Promise<void> {
    const [users, keys] = await Promise.all([this.opts.repository.loadUsers(), this.opts.repository.loadKeys()]);
    const keysById = new Map<string, KeyRecord[]>();
    for (const k of keys) {
      const list = keysById.get(k.keyId);
      if (list === undefined) keysById.set(k.keyId, [k]);
      else list.push(k);
    }
    this.snapshot = { keysById, users: new Map(users.map((u) => [u.userId, u])) };
    this.loadedAt = this.opts.clock();
  }
}
