/** Test-only helpers: run a parser and pull typed events out of the result. */
import assert from 'node:assert/strict';
import { createParserContext } from '../../connector/context.ts';
import type { MarketEvent, MarketEventType, Venue } from '#schemas/events.ts';
import type { ParseResult, ParserContext } from '../../connector/types.ts';

export const RECEIVED_AT = 1_700_000_000_000;

export function ctxFor(venue: Venue, connection = 'public'): ParserContext {
  return createParserContext({ venue, connection, receivedAt: RECEIVED_AT });
}

export function eventsOf(r: ParseResult): readonly MarketEvent[] {
  assert.equal(r.outcome, 'events', `expected events, got ${JSON.stringify(r)}`);
  return r.ok ? r.events : [];
}

export type EventOf<T extends MarketEventType> = Extract<MarketEvent, { type: T }>['event'];

export function only<T extends MarketEventType>(r: ParseResult, type: T): EventOf<T>[] {
  const list = eventsOf(r);
  const out: EventOf<T>[] = [];
  for (const e of list) {
    assert.equal(e.type, type);
    out.push(e.event as EventOf<T>);
  }
  return out;
}

export function first<T extends MarketEventType>(r: ParseResult, type: T): EventOf<T> {
  const [e] = only(r, type);
  assert.ok(e !== undefined, 'no event');
  return e;
}

export function assertDeadLetter(r: ParseResult, reason: RegExp): void {
  assert.equal(r.ok, false, `expected dead letter, got ${JSON.stringify(r).slice(0, 300)}`);
  if (!r.ok) assert.match(r.reason, reason);
}

export function assertIgnored(r: ParseResult, kind: string): void {
  assert.equal(r.outcome, 'ignored', `expected ignored, got ${JSON.stringify(r).slice(0, 300)}`);
  if (r.outcome === 'ignored') assert.equal(r.control.kind, kind);
}
