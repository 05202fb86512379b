/**
 * From an upgraded socket to a Session: authentication (X-API-Key on the upgrade, else `public/auth` with
 * `params.api_key` as the first frame within `authTimeoutMs`), the REST key rules (401 → close 4001, 403 →
 * close 4003), then admission under the user's concurrent-connection cap (refused → close 4029).
 */
import { randomUUID } from 'node:crypto';
import type { WebSocket } from 'ws';
import type { AccountCache, Account } from '../accounts/cache.ts';
import { entitlementOf, type Entitlement } from '../accounts/plans.ts';
import type { ApiConfig } from '../config.ts';
import { WS_CONNECTION_CAPS, type ConnectionCap } from './connection-cap.ts';
import type { FeedHub } from './hub.ts';
import { wsMetrics } from './metrics.ts';
import { CLOSE, parseFrame, result, rpcError, RPC_ERROR, type RequestId } from './protocol.ts';
import { FrameQueue } from './frame-queue.ts';
import type { ReplayOutput, ReplayPort } from './replay-port.ts';
import { Session, type Corkable } from './session.ts';

export interface HandshakeDeps {
  readonly accounts: AccountCache;
  readonly config: ApiConfig;
  readonly cap: ConnectionCap;
  readonly hub: FeedHub;
  readonly authTimeoutMs: number;
  readonly heartbeatMs: number;
  readonly maxBufferedBytes: number;
  /** Live sessions (for shutdown). */
  readonly sessions: Set<Session>;
  /** The replay methods (absent: not available). */
  readonly replay?: ReplayPort;
}

type Verdict =
  | { readonly ok: true; readonly account: Account; readonly ent: Entitlement }
  | { readonly ok: false; readonly code: number; readonly reason: string };

async function verify(deps: HandshakeDeps, key: string | undefined): Promise<Verdict> {
  const auth = deps.accounts.cached(key) ?? (await deps.accounts.authenticate(key));
  if (!auth.ok) return auth.reason === 'missing' ? { ok: false, ...CLOSE.missingKey } : { ok: false, ...CLOSE.unauthorized };
  const { account } = auth;
  if (account.status !== 'active')
    return { ok: false, code: CLOSE.forbidden.code, reason: `${CLOSE.forbidden.reason} (status: ${account.status})` };
  const ent = entitlementOf(deps.config, account.plan);
  if (ent === undefined) return { ok: false, code: CLOSE.forbidden.code, reason: `plan ${account.plan} does not include API access` };
  return { ok: true, account, ent };
}

const refuse = (ws: WebSocket, code: number, reason: string): void => {
  wsMetrics.closes.inc({ code: String(code) });
  ws.close(code, reason);
};

/** Waits for the first frame: it must be public/auth with params.api_key. */
function firstFrameKey(
  ws: WebSocket,
  frames: FrameQueue,
  timeoutMs: number,
): Promise<{ key: string | undefined; id: RequestId } | 'timeout' | 'closed'> {
  return new Promise((resolve) => {
    let done = false;
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    const onClose = (): void => finish('closed');
    function finish(v: { key: string | undefined; id: RequestId } | 'timeout' | 'closed'): void {
      if (done) return;
      done = true;
      clearTimeout(timer);
      ws.off('close', onClose);
      resolve(v);
    }
    ws.once('close', onClose);
    void frames.next().then(({ text }) => {
      const parsed = text === null ? null : parseFrame(text);
      if (parsed === null || !parsed.ok || parsed.request.method !== 'public/auth')
        return finish({ key: undefined, id: parsed?.ok === true ? parsed.request.id : null });
      const k = parsed.request.params['api_key'];
      finish({ key: typeof k === 'string' ? k : '', id: parsed.request.id });
    });
  });
}

/**
 * Authenticates and admits an upgraded connection; the session then handles its frames. `socket` is the upgrade's
 * socket (the one `ws` writes to): the session writes runs of frames framed once by the hub, and replay batches, to it.
 */
export async function openSession(
  deps: HandshakeDeps,
  ws: WebSocket,
  headerKey: string | string[] | undefined,
  socket?: Corkable,
): Promise<void> {
  ws.on('error', () => undefined);
  // From the upgrade on: frames sent before the welcome (a subscribe right after open) wait for the session.
  const frames = new FrameQueue(ws);
  let key: string | undefined;
  let authId: RequestId | undefined;
  if (Array.isArray(headerKey)) return refuse(ws, CLOSE.unauthorized.code, CLOSE.unauthorized.reason);
  if (headerKey !== undefined) key = headerKey;
  else {
    const first = await firstFrameKey(ws, frames, deps.authTimeoutMs);
    if (first === 'closed') return;
    if (first === 'timeout') return refuse(ws, CLOSE.authTimeout.code, CLOSE.authTimeout.reason);
    if (first.key === undefined) return refuse(ws, CLOSE.missingKey.code, CLOSE.missingKey.reason);
    key = first.key;
    authId = first.id;
  }
  const verdict = await verify(deps, key);
  if (!verdict.ok) return refuse(ws, verdict.code, verdict.reason);
  const connId = randomUUID();
  const capValue = WS_CONNECTION_CAPS[verdict.ent.level];
  const admission = await deps.cap.acquire(verdict.account.userId, connId, capValue);
  if (!admission.allowed)
    return refuse(
      ws,
      CLOSE.connectionCap.code,
      `${CLOSE.connectionCap.reason} (${admission.limit} for level ${verdict.ent.level}${admission.fallback ? ', per-machine fallback' : ''})`,
    );
  if (ws.readyState !== ws.OPEN) return deps.cap.release(connId);
  const level = verdict.ent.level;
  wsMetrics.connections.inc({ level });
  const replay = deps.replay;
  const client = { userId: verdict.account.userId, level, historyDays: verdict.ent.historyDays, evaluation: verdict.account.evaluation };
  const session = new Session({
    ws,
    ...(socket !== undefined ? { socket } : {}),
    hub: deps.hub,
    ...(replay !== undefined ? { replay: (out: ReplayOutput) => replay(client, out) } : {}),
    maxBufferedBytes: deps.maxBufferedBytes,
    heartbeatMs: deps.heartbeatMs,
    onEnd: () => {
      deps.sessions.delete(session);
      deps.cap.release(connId);
      wsMetrics.connections.dec({ level });
    },
  });
  deps.sessions.add(session);
  const welcome = {
    authenticated: true,
    user_id: verdict.account.userId,
    level,
    connection_cap: admission.limit,
    connections: admission.count,
    fallback: admission.fallback,
  };
  session.reply(result(authId ?? null, welcome));
  if (frames.overflowed) return session.close(CLOSE.earlyFlood.code, CLOSE.earlyFlood.reason);
  frames.handOver(({ text }) => {
    const parsed = text === null ? null : parseFrame(text);
    if (parsed === null) return session.reply(rpcError(null, RPC_ERROR.invalidRequest, 'binary frames are not supported'));
    if (!parsed.ok) return session.reply(rpcError(parsed.id, parsed.code, parsed.message));
    session.handle(parsed.request);
  });
}
