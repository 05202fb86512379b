/** The feed's published facts, for /v2/meta `websocket` and the AsyncAPI document (one source). */
import { LEVELS } from '../accounts/plans.ts';
import { LEASE_MS, WS_CONNECTION_CAPS } from './connection-cap.ts';
import { CLOSE, METHODS, RPC_ERROR } from './protocol.ts';
import { DEFAULT_HEARTBEAT_MS, DEFAULT_MAX_BUFFERED_BYTES, MAX_SUBSCRIPTIONS } from './session.ts';

export const WS_CHANNELS = [
  { name: 'tape.{symbol}', status: 'live', description: 'Every option trade as it is stored, across venues; data = one /v2/tape row.' },
  {
    name: 'levels.{symbol}[.{venue,venue,...}]',
    status: 'live',
    description:
      'Each new GEX levels snapshot (about every 30 s) under the flow model with std fallback; data.levels = the data of /v2/gex/levels (every block except candles); optional venue filter as the third part.',
  },
  {
    name: 'chain.{symbol}[.{venue,venue,...}]',
    status: 'live',
    description:
      'The consolidated options chain (rows of /v2/options/chain without dte): on subscribe a {type:"snapshot", rows} message with the channel\'s current seq, then at each new chain tick (about every 30 s, at most one per second) a {type:"changes", upserts, removals} message (seq + 1) with the contracts whose row changed or appeared and the keys (expiry, strike, type) of those that left; optional venue filter as the third part.',
  },
] as const;

export function websocketMeta(fallbackFactor: number): {
  path: string;
  protocol: string;
  auth: string[];
  connection_caps: { level: string; max_connections: number }[];
  cap_rules: string[];
  methods: string[];
  channels: { name: string; status: string; description: string }[];
  close_codes: { code: number; reason: string }[];
  rpc_error_codes: Record<string, number>;
  max_subscriptions_per_connection: number;
  notes: string[];
} {
  return {
    path: '/v2/ws',
    protocol:
      'JSON-RPC 2.0 over WebSocket text frames, Deribit style: public/subscribe with dotted channel names; notifications {"method":"subscription","params":{"channel","seq","data"}}',
    auth: [
      'X-API-Key header on the upgrade request (answered with {"id":null,"result":{"authenticated":true,...}}), or',
      'browsers: {"method":"public/auth","params":{"api_key":KEY}} as the first frame within 5 s (answered with its id); send nothing else before the answer',
      'same key rules as REST: 401 -> close 4001, 403 -> close 4003',
    ],
    connection_caps: LEVELS.map((level) => ({ level, max_connections: WS_CONNECTION_CAPS[level] })),
    cap_rules: [
      "per user, across all of the user's keys and (REDIS_URL) all API processes; sessions do not count against the monthly REST quota",
      `Redis failing or slow: a per-machine cap of ${fallbackFactor} x the level's cap (at least 1) until Redis answers (retried after 1 s)`,
      `connections of a crashed process stop counting after ${LEASE_MS / 1000} s`,
    ],
    methods: [...METHODS],
    channels: WS_CHANNELS.map((c) => ({ ...c })),
    close_codes: Object.values(CLOSE).map((c) => ({ code: c.code, reason: c.reason })),
    rpc_error_codes: { ...RPC_ERROR },
    max_subscriptions_per_connection: MAX_SUBSCRIPTIONS,
    notes: [
      'seq counts the notifications of a channel in this server process; a jump means a gap (reconnect and resubscribe)',
      `the server sends {"method":"heartbeat"} every ${DEFAULT_HEARTBEAT_MS / 1000} s; public/ping answers "pong"`,
      `a client whose send buffer exceeds ${DEFAULT_MAX_BUFFERED_BYTES} bytes is closed with 4009 (slow consumer); nothing is dropped silently`,
    ],
  };
}
