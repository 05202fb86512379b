import { request, type Agent } from 'node:http';

/** One GET over `agent`; resolves with the status and the body's byte count once the whole body has arrived. */
export function httpGet(
  agent: Agent,
  url: URL,
  headers: Readonly<Record<string, string>>,
): Promise<{ readonly status: number; readonly bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = request({ agent, host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, headers }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      res.once('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      res.once('error', reject);
    });
    req.once('error', reject);
    req.end();
  });
}
