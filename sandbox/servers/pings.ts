import type { Client, VenueHost } from './host.ts';

/**
 * Server-initiated WebSocket protocol pings (Derive, Paradex): a ping every `intervalMs`; a client whose last pong
 * is older than `pongTimeoutMs` when the next ping is due is terminated. Silenced hosts send no pings.
 */
export function startServerPings(host: VenueHost, c: Client, intervalMs: number, pongTimeoutMs: number): void {
  let lastPong = Date.now();
  c.ws.on('pong', () => {
    lastPong = Date.now();
  });
  c.timers.push(
    setInterval(() => {
      if (Date.now() - lastPong > pongTimeoutMs + intervalMs) {
        c.ws.terminate();
        return;
      }
      if (!host.silent) c.ws.ping();
    }, intervalMs),
  );
}
