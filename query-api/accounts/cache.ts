import type { FastifyBaseLogger } from 'fastify';
import { keyIdOf, hashKey, sameHash, sameKey } from './keys.ts';
import type { AccountsRepository, KeyRecord, UserRecord } from './repository.ts';

export interface Account {
  readonly userId: string;
  readonly keyId: string;
  readonly plan: string;
  readonly status: string;
  readonly evaluation: boolean;
}

export type AuthResult = { readonly ok: true; readonly account: Account } | { readonly ok: false; readonly reason: 'missing' | 'invalid' };

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
  /**
   * Keys verified against this copy (by hash) and their answer, by key id: later requests with the same key
   * skip the hashing and compare the presented key with the verified one in constant time. Goes with the copy.
   */
  readonly verified: Map<string, { readonly key: string; readonly result: AuthResult }>;
  /** repository.changeToken() when this copy was read. */
  readonly token: string;
}

const MISSING: AuthResult = { ok: false, reason: 'missing' };
const INVALID: AuthResult = { ok: false, reason: 'invalid' };

/**
 * In-memory copy of users and API keys. A request that finds the copy older than `refreshMs` revalidates it
 * (one at a time): a cheap change probe first, the full reload only when a table was written. A failed
 * reload keeps the last good copy and is retried after `refreshMs`. Only the very first load is allowed to
 * fail a request (the store error surfaces as 503).
 */
export class AccountCache {
  private snapshot: Snapshot | undefined;
  private loadedAt = Number.NEGATIVE_INFINITY;
  private inflight: Promise<void> | undefined;

  constructor(private readonly opts: AccountCacheOptions) {}

  /**
   * The answer without waiting when it is known: malformed or missing values, and keys already verified
   * against a fresh copy. undefined = call authenticate().
   */
  cached(value: string | undefined): AuthResult | undefined {
    if (value === undefined || value === '') return MISSING;
    const keyId = keyIdOf(this.opts.keyPrefix, value);
    if (keyId === null) return INVALID;
    const snap = this.snapshot;
    if (snap === undefined || this.opts.clock() - this.loadedAt >= this.opts.refreshMs) return undefined;
    const hit = snap.verified.get(keyId);
    return hit !== undefined && sameKey(hit.key, value) ? hit.result : undefined;
  }

  async authenticate(value: string | undefined): Promise<AuthResult> {
    if (value === undefined || value === '') return MISSING;
    const keyId = keyIdOf(this.opts.keyPrefix, value);
    if (keyId === null) return INVALID;
    const snap = await this.current();
    const hash = hashKey(value);
    let match: KeyRecord | undefined;
    for (const k of snap.keysById.get(keyId) ?? []) if (sameHash(k.keyHash, hash)) match = k;
    if (match === undefined || match.revokedAt !== null) return INVALID;
    const user = snap.users.get(match.userId);
    if (user === undefined) return INVALID;
    const result: AuthResult = {
      ok: true,
      account: { userId: user.userId, keyId: match.keyId, plan: user.plan, status: user.status, evaluation: user.evaluation },
    };
    snap.verified.set(keyId, { key: value, result });
    return result;
  }

  /** Forces a reload now (used after admin changes and by tests); never answered by a probe begun earlier. */
  async refresh(): Promise<void> {
    if (this.inflight !== undefined) await this.inflight.catch(() => undefined);
    await this.reload(true);
  }

  /** One reload at a time; `force` skips the change probe (the copy is read again in any case). */
  private async reload(force: boolean): Promise<void> {
    this.inflight ??= this.load(force).finally(() => {
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
        await this.reload(false);
      } catch (err) {
        // Keep serving the last good copy; try again after another refresh period.
        this.loadedAt = this.opts.clock();
        this.opts.log.warn(
          { err: err instanceof Error ? err.message : String(err) },
          'account cache refresh failed; serving the previous copy',
        );
      }
    }
    return this.snapshot as Snapshot;
  }

  private async load(force: boolean): Promise<void> {
    const token = await this.opts.repository.changeToken();
    if (!force && this.snapshot !== undefined && token === this.snapshot.token) {
      this.loadedAt = this.opts.clock();
      return;
    }
    const [users, keys] = await Promise.all([this.opts.repository.loadUsers(), this.opts.repository.loadKeys()]);
    const keysById = new Map<string, KeyRecord[]>();
    for (const k of keys) {
      const list = keysById.get(k.keyId);
      if (list === undefined) keysById.set(k.keyId, [k]);
      else list.push(k);
    }
    this.snapshot = { keysById, users: new Map(users.map((u) => [u.userId, u])), verified: new Map(), token };
    this.loadedAt = this.opts.clock();
  }
}
