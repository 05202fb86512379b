import type { z } from 'zod';
import type { endpointEntry, endpointParam } from './schemas.ts';

export type EndpointEntry = z.output<typeof endpointEntry>;
type EndpointParam = z.output<typeof endpointParam>;

interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly default?: unknown;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly anyOf?: readonly JsonSchema[];
  readonly description?: string;
}

interface OpenApiParameter {
  readonly name: string;
  readonly in: string;
  readonly required?: boolean;
  readonly description?: string;
  readonly schema?: JsonSchema;
}

interface OpenApiOperation {
  readonly tags?: readonly string[];
  readonly summary?: string;
  readonly description?: string;
  readonly parameters?: readonly OpenApiParameter[];
  readonly security?: readonly unknown[];
}

export interface OpenApiDocument {
  readonly paths?: Readonly<Record<string, Readonly<Record<string, OpenApiOperation>>>>;
  readonly security?: readonly unknown[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;
const LOCATIONS: Readonly<Record<string, EndpointParam['location']>> = { query: 'query', path: 'path', header: 'header' };

/** Collapses `anyOf: [X, {type: null}]` and reports the effective type. */
function flatten(s: JsonSchema | undefined): JsonSchema {
  if (s === undefined) return {};
  if (s.anyOf !== undefined) {
    const nonNull = s.anyOf.filter((x) => x.type !== 'null');
    if (nonNull.length === 1 && nonNull[0] !== undefined)
      return {
        ...flatten(nonNull[0]),
        ...(s.default !== undefined ? { default: s.default } : {}),
        description: s.description ?? nonNull[0].description,
      };
  }
  return s;
}

function param(p: OpenApiParameter, location: EndpointParam['location']): EndpointParam {
  const s = flatten(p.schema);
  const type = Array.isArray(s.type) ? s.type.join('|') : typeof s.type === 'string' ? s.type : s.enum !== undefined ? 'string' : 'any';
  const min = s.minimum ?? s.exclusiveMinimum;
  const max = s.maximum ?? s.exclusiveMaximum;
  return {
    name: p.name,
    location,
    required: p.required === true,
    type,
    description: p.description ?? s.description ?? null,
    ...(s.default !== undefined ? { default: s.default } : {}),
    ...(min !== undefined ? { minimum: min } : {}),
    ...(max !== undefined ? { maximum: max } : {}),
    ...(s.enum !== undefined ? { enum: [...s.enum] } : {}),
  };
}

/**
 * The /v2/endpoints listing, generated from the OpenAPI document that @fastify/swagger builds out of the
 * registered route schemas (so it cannot drift from the code).
 */
export function endpointsFromOpenApi(doc: OpenApiDocument, keyHeader: string): EndpointEntry[] {
  const out: EndpointEntry[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    const methods = METHODS.filter((m) => item[m] !== undefined);
    const op = item[methods[0] ?? 'get'];
    if (op === undefined) continue;
    const security = op.security ?? doc.security ?? [];
    const auth = security.length > 0;
    const parameters: EndpointParam[] = [];
    for (const p of op.parameters ?? []) {
      const location = LOCATIONS[p.in];
      if (location !== undefined) parameters.push(param(p, location));
    }
    if (auth)
      parameters.push({
        name: keyHeader,
        location: 'header',
        required: true,
        type: 'string',
        description: 'API key, <prefix>_live_<32 characters>',
      });
    out.push({
      path,
      methods: methods.map((m) => m.toUpperCase()),
      tag: op.tags?.[0] ?? 'other',
      summary: op.summary ?? '',
      description: op.description ?? '',
      auth,
      parameters,
    });
  }
  return out.sort((a, b) => a.path.localeCompare(b.path));
}
