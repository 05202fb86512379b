import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './metric-catalogue.ts';
import { freePort } from '../free-port.ts';
import { PROMETHEUS_DIR, RULE_FILES } from './prometheus-files.ts';

export interface Demo {
  readonly child: ChildProcess;
  readonly apiUrl: string;
  readonly apiKey: string;
  readonly metricsPort: number;
}

/** `gex demo` on free ports and its own data directory; resolves once it printed its API key. */
export async function startDemo(dataDir: string, env: Record<string, string>, timeoutMs = 60_000): Promise<Demo> {
  const [port, metricsPort, adminPort] = [await freePort(), await freePort(), await freePort()];
  const child = spawn(process.execPath, ['--import', 'tsx', 'app/cli/main.ts', 'demo'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      ...env,
      DATA_DIR: dataDir,
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      ADMIN_PORT: String(adminPort),
    },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const apiKey = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`demo printed no API key within ${timeoutMs} ms:\n${out}`)), timeoutMs);
    child.once('exit', (code) => reject(new Error(`demo exited with ${code}:\n${out}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const key = /API key \(user demo[^)]*\): (\S+)/.exec(out)?.[1];
      if (key !== undefined) {
        clearTimeout(timer);
        resolve(key);
      }
    });
  });
  return { child, apiUrl: `http://127.0.0.1:${port}`, apiKey, metricsPort };
}

export interface RunningPrometheus {
  readonly child: ChildProcess;
  readonly url: string;
}

/** A real Prometheus scraping one target as job gex-all, every 1 s, with the repository's rule files. */
export async function startPrometheus(dir: string, target: string): Promise<RunningPrometheus> {
  const port = await freePort();
  const config = join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    [
      'global: { scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1s }',
      'rule_files:',
      ...RULE_FILES.map((f) => `  - ${PROMETHEUS_DIR}${f}`),
      'scrape_configs:',
      `  - { job_name: gex-all, static_configs: [{ targets: ['${target}'], labels: { role: all } }] }`,
      '',
    ].join('\n'),
  );
  const child = spawn(
    'prometheus',
    [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'tsdb')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    {
      stdio: 'ignore',
    },
  );
  return { child, url: `http://127.0.0.1:${port}` };
}

/** Instant query through Prometheus's HTTP API: the number of series it returns. */
export async function seriesCount(prom: string, expr: string): Promise<number> {
  const res = await fetch(`${prom}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = (await res.json()) as { status: string; error?: string; data?: { result: unknown[] } };
  if (body.status !== 'success') throw new Error(`${expr}: ${body.error ?? res.status}`);
  return body.data?.result.length ?? 0;
}

/** Sends SIGINT/SIGTERM and waits for the exit (SIGKILL after `graceMs`). */
export function stop(child: ChildProcess, signal: NodeJS.Signals, graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}
