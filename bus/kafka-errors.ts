/**
 * Which KafkaJS errors mean "the broker is away or busy; try again" (a connection refused or closed, a request timed
 * out, a coordinator not found or loading, the client's retries used up on one of those), as opposed to an error no
 * retry can fix (an unknown topic with auto-creation off, a refused configuration). The rule is kafkajs's own for
 * restarting a crashed consumer: the retries-exceeded error, or an error whose innermost cause is retriable.
 */
interface KafkaJsErrorShape {
  readonly name?: unknown;
  readonly retriable?: unknown;
  readonly cause?: unknown;
}

function innermost(err: unknown): KafkaJsErrorShape | null {
  let e = typeof err === 'object' && err !== null ? (err as KafkaJsErrorShape) : null;
  for (let depth = 0; e !== null && typeof e.cause === 'object' && e.cause !== null && depth < 10; depth++)
    e = e.cause as KafkaJsErrorShape;
  return e;
}

export function isRetriableKafkaError(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  if ((err as KafkaJsErrorShape).name === 'KafkaJSNumberOfRetriesExceeded') return true;
  return innermost(err)?.retriable === true;
}
