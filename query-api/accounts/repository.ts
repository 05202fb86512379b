import type { Store } from '#clickhouse/store.ts';
import { generateKey, hashKey, type NewKey } from './keys.ts';
import { msText, msNullable } from '#clickhouse/epoch-ms.ts';

/** Rows of the account tables (clickhouse/migrations/010_accounts.sql), newest version of each. */
export interface UserRecord {
  readonly userId: string;
  readonly plan: string;
  readonly status: string;
  readonly evaluation: boolean;
  readonly updatedAt: number;
}

export interface KeyRecord {
  readonly keyHash: string;
  readonly keyId: string;
  readonly userId: string;
  readonly createdAt: number;
  readonly revokedAt: number | null;
}

interface UserRow {
  readonly user_id: string;
  readonly plan: string;
  readonly status: string;
  readonly evaluation: boolean | number;
  readonly updated_ms: string;
}

interface KeyRow {
  readonly key_hash: string;
  readonly key_id: string;
  readonly user_id: string;
  readonly created_ms: string;
  readonly revoked_ms: string | null;
}

export class AccountError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AccountError';
  }
}

const USERS_SQL = `SELECT user_id, plan, status, evaluation, ${msText('updated_at')} AS updated_ms
FROM users FINAL`;
const KEYS_SQL = `SELECT key_hash, key_id, user_id, ${msText('created_at')} AS created_ms,
  ${msNullable('revoked_at', msText)} AS revoked_ms
FROM api_keys FINAL`;

/**
 * Cheap change probe of both tables: row count (every write is an insert, so it grows; a merge shrinks it) and
 * the newest updated_at (every write carries a newer one). Equal answers: nothing to reload.
 */
const PROBE_SQL = `SELECT
  (SELECT toString(count()) FROM users) AS users_rows,
  (SELECT ${msText('max(updated_at)')} FROM users) AS users_max,
  (SELECT toString(count()) FROM api_keys) AS keys_rows,
  (SELECT ${msText('max(updated_at)')} FROM api_keys) AS keys_max`;

interface ProbeRow {
  readonly users_rows: string;
  readonly users_max: string;
  readonly keys_rows: string;
  readonly keys_max: string;
}

const toUser = (r: UserRow): UserRecord => ({
  userId: r.user_id,
  plan: r.plan,
  status: r.status,
  evaluation: r.evaluation === true || r.evaluation === 1,
  updatedAt: Number(r.updated_ms),
});
const toKey = (r: KeyRow): KeyRecord => ({
  keyHash: r.key_hash,
  keyId: r.key_id,
  userId: r.user_id,
  createdAt: Number(r.created_ms),
  revokedAt: r.revoked_ms === null ? null : Number(r.revoked_ms),
});

/**
 * Reads and writes the account tables. Writes are inserts of whole rows with a newer `updated_at`, so they
 * work the same on chDB and a ClickHouse cluster and never need mutations.
 */
export class AccountsRepository {
  private lastVersion = 0;

  constructor(
    private readonly store: Store,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Strictly increasing version stamps, so two changes in the same millisecond still order. */
  private version(): number {
    this.lastVersion = Math.max(this.lastVersion + 1, this.clock());
    return this.lastVersion;
  }

  async loadUsers(): Promise<UserRecord[]> {
    return (await this.store.query<UserRow>(USERS_SQL)).map(toUser);
  }

  async loadKeys(): Promise<KeyRecord[]> {
    return (await this.store.query<KeyRow>(KEYS_SQL)).map(toKey);
  }

  /** A token that changes whenever either table is written (see PROBE_SQL). */
  async changeToken(): Promise<string> {
    const r = (await this.store.query<ProbeRow>(PROBE_SQL))[0];
    return r === undefined ? '' : `${r.users_rows}/${r.users_max}/${r.keys_rows}/${r.keys_max}`;
  }

  async getUser(userId: string): Promise<UserRecord | undefined> {
    const rows = await this.store.query<UserRow>(`${USERS_SQL} WHERE user_id = {user_id:String}`, { user_id: userId });
    return rows[0] === undefined ? undefined : toUser(rows[0]);
  }

  async upsertUser(user: Omit<UserRecord, 'updatedAt'>): Promise<UserRecord> {
    const row: UserRecord = { ...user, updatedAt: this.version() };
    await this.store.insert('users', [
      { user_id: row.userId, plan: row.plan, status: row.status, evaluation: row.evaluation, updated_at: row.updatedAt },
    ]);
    return row;
  }

  async listKeys(userId: string): Promise<KeyRecord[]> {
    const rows = await this.store.query<KeyRow>(`${KEYS_SQL} WHERE user_id = {user_id:String} ORDER BY created_at`, { user_id: userId });
    return rows.map(toKey);
  }

  /** Issues a key for an existing user. The returned `key` is the only copy. */
  async createKey(userId: string, prefix: string): Promise<NewKey & { readonly userId: string; readonly createdAt: number }> {
    if ((await this.getUser(userId)) === undefined)
      throw new AccountError(`unknown user ${JSON.stringify(userId)}; create it with 'gex users upsert' first`);
    const k = generateKey(prefix);
    const now = this.version();
    await this.store.insert('api_keys', [
      { key_hash: k.keyHash, key_id: k.keyId, user_id: userId, created_at: now, revoked_at: null, updated_at: now },
    ]);
    return { ...k, userId, createdAt: now };
  }

  /** Revokes by full key or by key id. Returns the revoked record. */
  async revokeKey(keyOrId: string): Promise<KeyRecord> {
    const byHash = await this.store.query<KeyRow>(`${KEYS_SQL} WHERE key_hash = {h:String}`, { h: hashKey(keyOrId) });
    const rows = byHash.length > 0 ? byHash : await this.store.query<KeyRow>(`${KEYS_SQL} WHERE key_id = {id:String}`, { id: keyOrId });
    if (rows.length === 0) throw new AccountError('no such key');
    if (rows.length > 1) throw new AccountError(`key id ${keyOrId} is ambiguous; revoke with the full key`);
    const rec = toKey(rows[0] as KeyRow);
    if (rec.revokedAt !== null) return rec;
    const now = this.version();
    await this.store.insert('api_keys', [
      { key_hash: rec.keyHash, key_id: rec.keyId, user_id: rec.userId, created_at: rec.createdAt, revoked_at: now, updated_at: now },
    ]);
    return { ...rec, revokedAt: now };
  }
}
