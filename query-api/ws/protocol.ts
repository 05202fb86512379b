/**
 * The WebSocket feed protocol (/v2/ws), modelled on Deribit's JSON-RPC 2.0 API: requests
 * `{"jsonrpc":"2.0","id":1,"method":"public/subscribe","params":{"channels":["tape.BTCUSDT"]}}`, answers with
 * the same `id` (`result` or `error`), and notifications `{"jsonrpc":"2.0","method":"subscription",
 * "params":{"channel","seq","data"}}` with a sequence number per channel. Pure: parsing and message shapes.
 */
import { SYMBOLS, VENUES } from '#schemas/events.ts';
import type { MarketSymbol, Venue } from '#schemas/events.ts';

/** Frames a client may send before its welcome (they wait for the session); one more closes with 1008. */
export const MAX_EARLY_FRAMES = 32;

/** Close codes (4000-4999 are the application's; 1001 and 1011 are the standard ones). */
export const CLOSE = {
  goingAway: { code: 1001, reason: 'server shutting down' },
  earlyFlood: { code: 1008, reason: `more than ${MAX_EARLY_FRAMES} frames before the welcome` },
  unauthorized: { code: 4001, reason: 'invalid API key' },
  missingKey: { code: 4001, reason: 'missing API key: X-API-Key header or public/auth as the first frame' },
  forbidden: { code: 4003, reason: 'API access requires an active subscription' },
  authTimeout: { code: 4008, reason: 'no public/auth within 5 s' },
  slowConsumer: { code: 4009, reason: 'slow consumer: send buffer full' },
  connectionCap: { code: 4029, reason: 'concurrent connection limit reached' },
} as const;

/** JSON-RPC error codes. */
export const RPC_ERROR = {
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  unknownChannel: 10001,
  tooManySubscriptions: 10002,
  replayRunning: 10003,
  noReplay: 10004,
  replayCap: 10005,
} as const;

export const METHODS = [
  'public/auth',
  'public/subscribe',
  'public/unsubscribe',
  'public/unsubscribe_all',
  'public/ping',
  'public/replay',
  'public/replay_pause',
  'public/replay_resume',
  'public/replay_stop',
] as const;
export type Method = (typeof METHODS)[number];

export type RequestId = string | number | null;

export interface RpcRequest {
  readonly id: RequestId;
  readonly method: Method;
  readonly params: Readonly<Record<string, unknown>>;
}

export type ParsedFrame =
  | { readonly ok: true; readonly request: RpcRequest }
  | { readonly ok: false; readonly id: RequestId; readonly code: number; readonly message: string };

/** Channel kinds: tape (trades), levels (GEX snapshot), chain (consolidated options chain). */
export const CHANNEL_KINDS = ['tape', 'levels', 'chain'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

export interface Channel {
  readonly kind: ChannelKind;
  readonly symbol: MarketSymbol;
  /** levels and chain: venue filter, sorted, deduplicated; undefined = all venues. */
  readonly venues?: readonly Venue[];
  /** Canonical name (venues sorted), used in acknowledgements and notifications. */
  readonly name: string;
}

const idOf = (v: unknown): RequestId => (typeof v === 'string' || typeof v === 'number' ? v : null);

/** One text frame → a request, or the JSON-RPC error to answer with. */
export function parseFrame(text: string): ParsedFrame {
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch {
    return { ok: false, id: null, code: RPC_ERROR.parse, message: 'parse error: not JSON' };
  }
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg))
    return { ok: false, id: null, code: RPC_ERROR.invalidRequest, message: 'a request is a JSON object' };
  const o = msg as Record<string, unknown>;
  const id = idOf(o['id']);
  const method = o['method'];
  if (typeof method !== 'string') return { ok: false, id, code: RPC_ERROR.invalidRequest, message: 'method must be a string' };
  if (!(METHODS as readonly string[]).includes(method))
    return { ok: false, id, code: RPC_ERROR.methodNotFound, message: `unknown method ${method.slice(0, 64)}` };
  const params = o['params'] ?? {};
  if (typeof params !== 'object' || params === null || Array.isArray(params))
    return { ok: false, id, code: RPC_ERROR.invalidParams, message: 'params must be an object' };
  return { ok: true, request: { id, method: method as Method, params: params as Record<string, unknown> } };
}

/**
 * `tape.{symbol}`, `levels.{symbol}[.{venue,venue...}]` or `chain.{symbol}[.{venue,venue...}]` → the channel, or
 * null when the kind, symbol or a venue is unknown.
 */
export function parseChannel(name: string): Channel | null {
  const parts = name.split('.');
  const [kind, symbol, venueList] = parts;
  if (parts.length < 2 || parts.length > 3 || !(CHANNEL_KINDS as readonly string[]).includes(kind ?? '')) return null;
  if (!(SYMBOLS as readonly string[]).includes(symbol ?? '')) return null;
  const sym = symbol as MarketSymbol;
  if (kind === 'tape') return parts.length === 2 ? { kind: 'tape', symbol: sym, name: `tape.${sym}` } : null;
  const k = kind as 'levels' | 'chain';
  if (venueList === undefined) return { kind: k, symbol: sym, name: `${k}.${sym}` };
  const venues = [...new Set(venueList.split(','))].sort();
  if (venues.length === 0 || venues.some((v) => !(VENUES as readonly string[]).includes(v))) return null;
  return { kind: k, symbol: sym, venues: venues as Venue[], name: `${k}.${sym}.${venues.join(',')}` };
}

/** `params.channels` as a list of strings, or null. */
export function channelList(params: Readonly<Record<string, unknown>>): readonly string[] | null {
  const c = params['channels'];
  return Array.isArray(c) && c.length > 0 && c.every((x) => typeof x === 'string') ? (c as string[]) : null;
}

export const result = (id: RequestId, value: unknown): string => JSON.stringify({ jsonrpc: '2.0', id, result: value });

export const rpcError = (id: RequestId, code: number, message: string, data?: unknown): string =>
  JSON.stringify({ jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } });

/** Server heartbeat (Deribit: method "heartbeat"). */
export const heartbeat = (now: number): string =>
  JSON.stringify({ jsonrpc: '2.0', method: 'heartbeat', params: { type: 'heartbeat', time: new Date(now).toISOString() } });

/** A notification, built around a pre-serialized data document so it is encoded once per channel. */
export const notification = (channel: string, seq: number, dataJson: string): string =>
  `{"jsonrpc":"2.0","method":"subscription","params":{"channel":${JSON.stringify(channel)},"seq":${seq},"data":${dataJson}}}`;
