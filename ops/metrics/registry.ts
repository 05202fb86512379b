import { Registry, collectDefaultMetrics } from 'prom-client';

/**
 * One prom-client registry per process. Every module registers its metrics here (never on prom-client's
 * global default registry), and the /metrics endpoint serves it.
 */
export const metricsRegistry = new Registry();
metricsRegistry.setDefaultLabels({ service: 'gex' });
collectDefaultMetrics({ register: metricsRegistry });
