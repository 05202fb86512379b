import type { Logger } from '#platform/log.ts';

/**
 * kafkajs 2.2.4 schedules its request-queue check with `throttledUntil - Date.now()`, a negative delay before any
 * throttling, which Node 24+ reports as a TimeoutNegativeWarning on every connection (tulios/kafkajs#1751, no
 * release fixes it). Node runs such a timer after 1 ms, exactly what kafkajs meant: nothing to act on.
 */
function isKnownKafkaJsTimer(w: Error): boolean {
  return w.name === 'TimeoutNegativeWarning' && /[\\/]kafkajs[\\/]src[\\/]network[\\/]requestQueue[\\/]/.test(w.stack ?? '');
}

/**
 * Process warnings (deprecations, negative timers, listener leaks) as structured warn lines of the role's log
 * instead of Node's raw stderr text, which breaks a JSON log stream; the one known harmless kafkajs warning is
 * dropped. Call once, before the roles open their clients.
 */
export function logProcessWarnings(log: Logger): void {
  process.removeAllListeners('warning');
  process.on('warning', (w: Error) => {
    if (isKnownKafkaJsTimer(w)) return;
    log.warn({ warning: { name: w.name, message: w.message, stack: w.stack } }, `process warning: ${w.name}: ${w.message}`);
  });
}
