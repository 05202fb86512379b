/**
 * The cluster's Redis (the API replicas' shared rate-limit and quota counters, REDIS_URL): `redis-server` on a free
 * loopback port, nothing persisted, its output appended to `<logDir>/redis.log`. Stopped with SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../free-port.ts';

export interface RedisServer {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function startRedisServer(logDir: string, timeoutMs = 10_000): Promise<RedisServer> {
  const port = await freePort();
  const logFile = join(logDir, 'redis.log');
  const from = existsSync(logFile) ? statSync(logFile).size : 0;
  const fd = openSync(logFile, 'a');
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const child: ChildProcess = spawn('redis-server', args, { stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let failed = false;
  child.once('error', () => (failed = true));
  const until = Date.now() + timeoutMs;
  while (!readFileSync(logFile, 'utf8').slice(from).includes('Ready to accept connections')) {
    if (failed || child.exitCode !== null || Date.now() > until) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not start (is it installed? log: ${logFile})`);
    }
    await sleep(100);
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    pid: child.pid ?? -1,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
