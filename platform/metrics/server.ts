import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { processMetrics } from './registry.ts';

/** Serves the process's metrics (every thread's registry, processMetrics) on GET /metrics (Prometheus text format). */
export async function startMetricsServer(host: string, port: number): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' && (req.url === '/metrics' || req.url?.startsWith('/metrics?'))) {
      processMetrics()
        .then(async (registry) => {
          const body = await registry.metrics();
          res.writeHead(200, { 'content-type': registry.contentType });
          res.end(body);
        })
        .catch(() => {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end('metrics collection failed\n');
        });
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found: GET /metrics\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
