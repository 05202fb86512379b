/**
 * AsyncAPI 3.0 description of /v2/ws, served at /v2/asyncapi.json next to /v2/openapi.json.
 * Built from the same catalog as /v2/meta `websocket`.
 */
import { z } from 'zod';
import { SYMBOLS, VENUES } from '#schemas/events.ts';
import { errorResponses } from '../envelope/envelope-schemas.ts';
import { OPENAPI_VERSION } from '../plugins/docs.ts';
import type { RouteFamily } from '../types.ts';
import { replayMeta, WS_CHANNELS, websocketMeta } from './catalog.ts';
import { CLOSE } from './protocol.ts';
import { TRADE_MAX_AGE_MS } from './trade-backlog.ts';

const rpcRequest = (method: string, params: Record<string, unknown>, required: readonly string[]) => ({
  type: 'object',
  required: ['jsonrpc', 'id', 'method'],
  properties: {
    jsonrpc: { const: '2.0' },
    id: { type: ['integer', 'string'] },
    method: { const: method },
    params: { type: 'object', properties: params, required },
  },
});

const tapeRowSchema = {
  type: 'object',
  properties: {
    time: { type: 'string', format: 'date-time' },
    venue: { enum: [...VENUES] },
    symbol: { enum: [...SYMBOLS] },
    instrument: { type: 'string' },
    expiry: { type: 'string', format: 'date-time' },
    strike: { type: 'number' },
    type: { enum: ['call', 'put'] },
    side: { enum: ['buy', 'sell'], description: 'taker side' },
    size: { type: 'number', description: 'coins' },
    price: { type: 'number', description: "venue's currency" },
    price_currency: { type: 'string' },
    price_usd: { type: 'number' },
    premium_usd: { type: 'number' },
    iv: { type: ['number', 'null'] },
    index_price: { type: ['number', 'null'] },
    block: { type: 'boolean' },
    trade_id: { type: 'string' },
  },
};

const notificationOf = (data: Record<string, unknown>) => ({
  type: 'object',
  properties: {
    jsonrpc: { const: '2.0' },
    method: { const: 'subscription' },
    params: {
      type: 'object',
      properties: {
        channel: { type: 'string' },
        seq: {
          type: 'integer',
          minimum: 1,
          description: `number of the notification on its channel in this server process; a jump is a gap: tape trades that waited over ${TRADE_MAX_AGE_MS / 1000} s for their fan-out are not sent but take their seqs (read them from /v2/tape)`,
        },
        data,
      },
    },
  },
});

/** The server the document names: `wss` when the API serves TLS itself, the public base URL's host when set. */
export function feedServer(config: { readonly tlsCertFile?: string | undefined; readonly publicBaseUrl: string }): {
  readonly host: string;
  readonly protocol: 'ws' | 'wss';
} {
  let host = 'localhost:8080';
  try {
    if (config.publicBaseUrl !== '') host = new URL(config.publicBaseUrl).host;
  } catch {
    // not a URL: keep the default
  }
  const secure = config.tlsCertFile !== undefined || config.publicBaseUrl.startsWith('https:');
  return { host, protocol: secure ? 'wss' : 'ws' };
}

export function asyncApiDocument(
  fallbackFactor: number,
  server: { readonly host: string; readonly protocol: 'ws' | 'wss' } = { host: 'localhost:8080', protocol: 'ws' },
): Record<string, unknown> {
  const meta = websocketMeta(fallbackFactor);
  const [tape, levels, chain] = WS_CHANNELS;
  const replay = replayMeta();
  const instant = { type: ['string', 'integer'], description: 'ISO-8601 instant with a time zone, or epoch ms' };
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'GEX Analytics WebSocket feed',
      version: OPENAPI_VERSION,
      description:
        `${meta.protocol}.\n\nAuth: ${meta.auth.join(' ')}.\n\nConnection caps per level: ` +
        `${meta.connection_caps.map((c) => `${c.level} ${c.max_connections}`).join(', ')}. ${meta.cap_rules.join('; ')}.\n\nClose codes: ${Object.values(
          CLOSE,
        )
          .map((c) => `${c.code} ${c.reason}`)
          .join('; ')}.`,
    },
    servers: {
      api: {
        host: server.host,
        pathname: '/v2/ws',
        protocol: server.protocol,
        security: [{ $ref: '#/components/securitySchemes/apiKey' }],
      },
    },
    channels: {
      feed: {
        address: '/v2/ws',
        messages: {
          auth: { $ref: '#/components/messages/auth' },
          subscribe: { $ref: '#/components/messages/subscribe' },
          unsubscribe: { $ref: '#/components/messages/unsubscribe' },
          ping: { $ref: '#/components/messages/ping' },
          response: { $ref: '#/components/messages/response' },
          heartbeat: { $ref: '#/components/messages/heartbeat' },
          tape: { $ref: '#/components/messages/tape' },
          levels: { $ref: '#/components/messages/levels' },
          chain: { $ref: '#/components/messages/chain' },
          replay: { $ref: '#/components/messages/replay' },
          replayControl: { $ref: '#/components/messages/replayControl' },
          replayMessage: { $ref: '#/components/messages/replayMessage' },
          replayDone: { $ref: '#/components/messages/replayDone' },
        },
      },
    },
    operations: {
      sendAuth: { action: 'receive', channel: { $ref: '#/channels/feed' }, messages: [{ $ref: '#/channels/feed/messages/auth' }] },
      sendSubscribe: {
        action: 'receive',
        channel: { $ref: '#/channels/feed' },
        messages: [
          { $ref: '#/channels/feed/messages/subscribe' },
          { $ref: '#/channels/feed/messages/unsubscribe' },
          { $ref: '#/channels/feed/messages/ping' },
        ],
      },
      answer: { action: 'send', channel: { $ref: '#/channels/feed' }, messages: [{ $ref: '#/channels/feed/messages/response' }] },
      heartbeat: { action: 'send', channel: { $ref: '#/channels/feed' }, messages: [{ $ref: '#/channels/feed/messages/heartbeat' }] },
      publishTape: {
        action: 'send',
        channel: { $ref: '#/channels/feed' },
        summary: tape.name,
        description: tape.description,
        messages: [{ $ref: '#/channels/feed/messages/tape' }],
      },
      publishLevels: {
        action: 'send',
        channel: { $ref: '#/channels/feed' },
        summary: levels.name,
        description: levels.description,
        messages: [{ $ref: '#/channels/feed/messages/levels' }],
      },
      publishChain: {
        action: 'send',
        channel: { $ref: '#/channels/feed' },
        summary: chain.name,
        description: chain.description,
        messages: [{ $ref: '#/channels/feed/messages/chain' }],
      },
      sendReplay: {
        action: 'receive',
        channel: { $ref: '#/channels/feed' },
        summary: 'public/replay and its controls',
        description: replay.flow_control.join('; '),
        messages: [{ $ref: '#/channels/feed/messages/replay' }, { $ref: '#/channels/feed/messages/replayControl' }],
      },
      publishReplay: {
        action: 'send',
        channel: { $ref: '#/channels/feed' },
        summary: 'replay messages, then replay_done',
        description: `${replay.notifications['replay'] ?? ''} ${replay.notifications['replay_done'] ?? ''}`,
        messages: [{ $ref: '#/channels/feed/messages/replayMessage' }, { $ref: '#/channels/feed/messages/replayDone' }],
      },
    },
    components: {
      securitySchemes: { apiKey: { type: 'httpApiKey', name: 'X-API-Key', in: 'header' } },
      messages: {
        auth: { payload: rpcRequest('public/auth', { api_key: { type: 'string' } }, ['api_key']) },
        subscribe: {
          payload: rpcRequest(
            'public/subscribe',
            {
              channels: {
                type: 'array',
                items: { type: 'string' },
                examples: [['tape.BTCUSDT', 'levels.BTCUSDT.deribit,okx', 'chain.BTCUSDT']],
              },
            },
            ['channels'],
          ),
        },
        unsubscribe: {
          payload: rpcRequest('public/unsubscribe', { channels: { type: 'array', items: { type: 'string' } } }, ['channels']),
        },
        ping: { payload: rpcRequest('public/ping', {}, []) },
        replay: {
          description: replay.methods['public/replay'],
          payload: rpcRequest(
            'public/replay',
            {
              channels: {
                type: 'array',
                minItems: 1,
                maxItems: replay.max_channels,
                items: { type: 'string' },
                examples: [['levels.BTCUSDT', 'tape.BTCUSDT']],
              },
              from: instant,
              to: instant,
              speed: {
                oneOf: [{ const: 'max' }, { type: 'number', minimum: replay.speed.min, maximum: replay.speed.max }],
                default: 'max',
              },
            },
            ['channels', 'from', 'to'],
          ),
        },
        replayControl: {
          description: Object.entries(replay.methods)
            .filter(([m]) => m !== 'public/replay')
            .map(([m, d]) => `${m}: ${d}`)
            .join('; '),
          payload: {
            type: 'object',
            required: ['jsonrpc', 'id', 'method'],
            properties: {
              jsonrpc: { const: '2.0' },
              id: { type: ['integer', 'string'] },
              method: { enum: ['public/replay_pause', 'public/replay_resume', 'public/replay_stop'] },
            },
          },
        },
        replayMessage: {
          description: replay.notifications['replay'],
          payload: {
            type: 'object',
            properties: {
              jsonrpc: { const: '2.0' },
              method: { const: 'replay' },
              params: {
                type: 'object',
                properties: {
                  channel: { type: 'string' },
                  at: { type: 'string', format: 'date-time' },
                  seq: { type: 'integer', minimum: 1 },
                  data: { type: 'object', description: "the live channel's notification data" },
                },
              },
            },
          },
        },
        replayDone: {
          description: replay.notifications['replay_done'],
          payload: {
            type: 'object',
            properties: {
              jsonrpc: { const: '2.0' },
              method: { const: 'replay_done' },
              params: {
                type: 'object',
                properties: {
                  replay_id: { type: 'string' },
                  status: { enum: ['completed', 'stopped', 'failed'] },
                  from: { type: 'string', format: 'date-time' },
                  to: { type: 'string', format: 'date-time' },
                  counts: { type: 'object', additionalProperties: { type: 'integer' } },
                  history_clamp: { type: 'object' },
                  error: {
                    type: 'object',
                    properties: {
                      code: { type: 'string' },
                      message: { type: 'string' },
                      resume_from: { type: 'string', format: 'date-time' },
                    },
                  },
                },
              },
            },
          },
        },
        response: {
          payload: {
            type: 'object',
            properties: {
              jsonrpc: { const: '2.0' },
              id: { type: ['integer', 'string', 'null'] },
              result: {},
              error: { type: 'object', properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} } },
            },
          },
          description: `Error codes: ${JSON.stringify(meta.rpc_error_codes)}`,
        },
        heartbeat: {
          payload: {
            type: 'object',
            properties: {
              jsonrpc: { const: '2.0' },
              method: { const: 'heartbeat' },
              params: { type: 'object', properties: { type: { const: 'heartbeat' }, time: { type: 'string', format: 'date-time' } } },
            },
          },
        },
        tape: { payload: notificationOf(tapeRowSchema) },
        levels: {
          payload: notificationOf({
            type: 'object',
            properties: {
              symbol: { enum: [...SYMBOLS] },
              computed_at: { type: 'string', format: 'date-time' },
              spot_price: { type: 'number' },
              source: { type: 'array', items: { type: 'string' } },
              exchanges_filtered: { type: 'array', items: { type: 'string' } },
              positioning: {
                type: 'object',
                properties: { requested: { const: 'flow' }, served: { enum: ['flow', 'std'] }, fallback_reason: { type: 'string' } },
              },
              levels: { type: 'object', description: 'the data of GET /v2/gex/levels (see /v2/openapi.json)' },
            },
          }),
        },
        chain: {
          payload: notificationOf({
            type: 'object',
            properties: {
              type: { enum: ['snapshot', 'changes'] },
              symbol: { enum: [...SYMBOLS] },
              computed_at: { type: 'string', format: 'date-time' },
              spot: { type: 'number' },
              exchanges_filtered: { type: 'array', items: { type: 'string' } },
              rows: {
                type: 'array',
                description: 'snapshot: every contract, a row of GET /v2/options/chain (layout=rows) without dte',
                items: { type: 'object' },
              },
              upserts: { type: 'array', description: 'changes: rows that changed or appeared', items: { type: 'object' } },
              removals: {
                type: 'array',
                description: 'changes: contracts that left the chain',
                items: {
                  type: 'object',
                  properties: {
                    expiry: { type: 'string', format: 'date-time' },
                    strike: { type: 'number' },
                    type: { enum: ['call', 'put'] },
                  },
                },
              },
            },
          }),
        },
      },
    },
  };
}

/**
 * GET /v2/asyncapi.json. Needs a key like every route outside the spec's four public paths (openapi.json,
 * docs, redoc, health).
 */
export const asyncApiRoutes: RouteFamily = async (app, ctx) => {
  const doc = asyncApiDocument(ctx.config.rateLimitFallbackFactor, feedServer(ctx.config));
  app.get('/v2/asyncapi.json', {
    schema: {
      tags: ['discovery'],
      summary: 'AsyncAPI document of the WebSocket feed',
      description: 'AsyncAPI 3.0 description of /v2/ws: auth, channels, messages, close codes.',
      response: { 200: z.record(z.string(), z.unknown()).describe('AsyncAPI 3.0 document'), ...errorResponses({ auth: true }) },
    },
    handler: async () => doc,
  });
};
