/** The feed's published facts, for /v2/meta `websocket` and the AsyncAPI document (one source). */
import { LEVELS } from '../accounts/plans.ts';
import { MAX_REPLAY_SPEED, MIN_REPLAY_SPEED, REPLAY_CAPS, REPLAY_HIGH_WATER, REPLAY_LOW_WATER, REPLAY_STALL_MS } from '../replay/caps.ts';
import { MAX_REPLAY_CHANNELS } from '../replay/request.ts';
import { LEASE_MS, WS_CONNECTION_CAPS } from './connection-cap.ts';
import { CLOSE, METHODS, RPC_ERROR } from './protocol.ts';
import { DEFAULT_HEARTBEAT_MS, DEFAULT_MAX_BUFFERED_BYTES, MAX_SUBSCRIPTIONS } from './session.ts';
import { TRADE_MAX_AGE_MS } from './trade-backlog.ts';

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

export interface ReplayMeta {
  methods: Record<string, string>;
  notifications: Record<string, string>;
  concurrent_caps: { level: string; max_replays: number }[];
  max_channels: number;
  speed: { default: string; min: number; max: number };
  flow_control: string[];
}

/** The replay methods (query-api/replay/ws-replay.ts): /v2/meta `websocket.replay` and the AsyncAPI document. */
export function replayMeta(): ReplayMeta {
  return {
    methods: {
      'public/replay':
        'params {channels: [name, ...], from, to (ISO-8601 or epoch ms, inclusive), speed ("max" or a real-time multiple)}: the stored history of the channels merged in time order (instant, channel name, channel order); answered with {replay_id, channels, from, to, speed[, history_clamp]} before the first message; one replay per connection',
      'public/replay_pause': 'no params: holds the replay between two messages; answered with {replay_id, state: "paused", sent}',
      'public/replay_resume': 'no params: goes on (real-time pacing excludes the pause); answered with {replay_id, state: "running", sent}',
      'public/replay_stop':
        'no params: ends the replay; answered with {replay_id, state: "stopping", sent}, then replay_done with status "stopped"',
    },
    notifications: {
      replay:
        '{"method":"replay","params":{channel, at, seq, data}}: a line of GET /v2/replay; data exactly as the live channel sends it, at the instant it represents, seq 1, 2, ... per channel in this replay',
      replay_done:
        '{"method":"replay_done","params":{replay_id, status: "completed"|"stopped"|"failed", from, to, counts[, history_clamp][, error {code, message, resume_from}]}}: the last message of a replay (none when the connection closed)',
    },
    concurrent_caps: LEVELS.map((level) => ({ level, max_replays: REPLAY_CAPS[level] })),
    max_channels: MAX_REPLAY_CHANNELS,
    speed: { default: 'max', min: MIN_REPLAY_SPEED, max: MAX_REPLAY_SPEED },
    flow_control: [
      'concurrent replays count per user across connections, API processes (REDIS_URL) and GET /v2/replay; over the cap: error 10005 (GET /v2/replay: 429)',
      "the window is clamped to the plan's history window as as_of reads are (evaluation keys: enforced; history_clamp reports it)",
      `speed max is paced by the client: a message is written only while the connection's send buffer is under ${REPLAY_HIGH_WATER} bytes (once above, when it is down to ${REPLAY_LOW_WATER}); the next store page is read only then, so server memory stays bounded whatever the window`,
      `a client that does not take ${REPLAY_HIGH_WATER - REPLAY_LOW_WATER} bytes within ${REPLAY_STALL_MS / 1000} s is closed with 4009; other connections are not affected`,
      'store failure mid-replay: replay_done with status "failed" and error.resume_from (replay again from there; messages at that instant are sent again)',
    ],
  };
}

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
  replay: ReplayMeta;
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
    replay: replayMeta(),
    notes: [
      `seq numbers the notifications of a channel in this server process; a jump means a gap: tape trades that waited over ${TRADE_MAX_AGE_MS / 1000} s for their fan-out (server overload) are not sent but take their seqs (read them from /v2/tape); otherwise reconnect and resubscribe`,
      `the server sends {"method":"heartbeat"} every ${DEFAULT_HEARTBEAT_MS / 1000} s; public/ping answers "pong"`,
      `a client whose send buffer exceeds ${DEFAULT_MAX_BUFFERED_BYTES} bytes is closed with 4009 (slow consumer); nothing is dropped silently (dropped tape trades show as a seq jump)`,
    ],
  };
}
