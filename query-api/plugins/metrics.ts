import fp from 'fastify-plugin';
import { Histogram } from 'prom-client';
import { metricsRegistry, registeredMetric } from '#platform/metrics/registry.ts';
import { METRIC } from '#platform/metrics/names.ts';

const NAME = METRIC.apiRequestDuration;

function histogram(): Histogram<'method' | 'route' | 'status'> {
  return registeredMetric(
    NAME,
    () =>
      new Histogram({
        name: NAME,
        help: 'Duration of /v2 HTTP requests by route template and status code.',
        labelNames: ['method', 'route', 'status'] as const,
        buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
        registers: [metricsRegistry],
      }),
  );
}

/** Request duration histogram on the shared metrics registry (route = template, never the raw URL). */
export const metricsPlugin = fp(
  async (app) => {
    const h = histogram();
    // Callback style: no promise per request.
    app.addHook('onResponse', (request, reply, done) => {
      const route = request.is404 ? 'unmatched' : (request.routeOptions.url ?? 'unmatched');
      h.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
      done();
    });
  },
  { name: 'gex-metrics' },
);
