import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { metricsRegistry } from './registry.ts';

/** Serves the process's registry on GET /metrics (Prometheus text format). */
export async function startMetricsServer(host: string, port: number): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' && (req.url === '/metrics' || req.url?.startsWith('/metrics?'))) {
      metricsRegistry
        .metrics()
        .then((body) => {
          res.writeHead(200, { 'content-type': metricsRegistry.contentType });
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
