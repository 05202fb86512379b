/**
 * The harness's own Kafka broker (ops/kafka/start.sh on other ports and run directory, so a broker the
 * developer runs on 9092 is never touched), and the broker stop/start fault: SIGTERM to the broker process (a
 * clean shutdown, data kept), then the same java command line again on the same data directory.
 */
import { spawn, spawnSync } from 'node:child_process';
import { openSync, closeSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import net from 'node:net';
import { processAlive } from '#platform/process-alive.ts';
import { STAT_FIELD, statFields } from '#platform/threads/proc-stat.ts';

export interface BrokerControl {
  readonly brokers: readonly string[];
  /** Stops the broker (SIGTERM, waits for exit), waits `downMs`, starts it again; resolves when it accepts connections. */
  bounce(downMs: number, onDown?: () => void): Promise<{ downAt: number; upAt: number }>;
  stop(): void;
  /**
   * Freezes (SIGSTOP) or thaws (SIGCONT) the broker process: its connections stay open and unanswered meanwhile.
   * freeze() returns once every thread of the process is stopped (Linux /proc), and throws if that takes over 5 s.
   */
  freeze(): Promise<void>;
  thaw(): void;
  /** stop() without blocking the event loop (several brokers stop at once). */
  stopAsync(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port }, () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}

/** Threads of `pid` not in the stopped state ('T' in /proc/PID/task/TID/stat). */
function runningThreads(pid: number): number {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0; // not Linux, or the process is gone: nothing to wait for
  }
  let running = 0;
  for (const tid of tids) {
    try {
      if (statFields(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'))[STAT_FIELD.state] !== 'T') running++;
    } catch {
      // the thread exited meanwhile
    }
  }
  return running;
}

async function stopProcess(pid: number): Promise<void> {
  process.kill(pid, 'SIGSTOP');
  const deadline = Date.now() + 5_000;
  for (let running = runningThreads(pid); running > 0; running = runningThreads(pid)) {
    if (Date.now() > deadline) throw new Error(`broker pid ${pid}: ${running} thread(s) still running 5 s after SIGSTOP`);
    await sleep(10);
  }
}

function brokerEnv(runDir: string, port: number, controllerPort: number): NodeJS.ProcessEnv {
  return {
    ...process.env,
    KAFKA_PORT: String(port),
    KAFKA_CONTROLLER_PORT: String(controllerPort),
    KAFKA_RUN_DIR: runDir,
    // A JVM start on a busy 2-core machine (two brokers at once) can take over a minute.
    KAFKA_READY_TIMEOUT: process.env['KAFKA_READY_TIMEOUT'] ?? '180',
  };
}

export function startPrivateBroker(root: string, runDir: string, port: number, controllerPort: number): BrokerControl {
  const env = brokerEnv(runDir, port, controllerPort);
  const r = spawnSync('bash', [join(root, 'ops/kafka/start.sh')], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error('could not start the chaos Kafka broker');
  return brokerControl(root, runDir, port, env);
}

/** startPrivateBroker without blocking the event loop (several brokers start at once). */
export async function startPrivateBrokerAsync(root: string, runDir: string, port: number, controllerPort: number): Promise<BrokerControl> {
  const env = brokerEnv(runDir, port, controllerPort);
  const child = spawn('bash', [join(root, 'ops/kafka/start.sh')], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`could not start the chaos Kafka broker on port ${port}`);
  return brokerControl(root, runDir, port, env);
}

function brokerControl(root: string, runDir: string, port: number, env: NodeJS.ProcessEnv): BrokerControl {
  const pidFile = join(runDir, 'kafka.pid');
  const brokerPid = (): number => Number(readFileSync(pidFile, 'utf8').trim());
  const signal = (sig: NodeJS.Signals): void => void process.kill(brokerPid(), sig);
  return {
    brokers: [`127.0.0.1:${port}`],
    freeze: () => stopProcess(brokerPid()),
    thaw: () => signal('SIGCONT'),
    bounce: async (downMs, onDown) => {
      const pid = brokerPid();
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
        .split('\0')
        .filter((s) => s.length > 0);
      process.kill(pid, 'SIGTERM');
      while (processAlive(pid)) await sleep(100);
      const downAt = Date.now();
      onDown?.();
      await sleep(downMs);
      const out = openSync(join(runDir, 'kafka.out'), 'a');
      const child = spawn(cmdline[0] as string, cmdline.slice(1), { env, stdio: ['ignore', out, out], detached: true });
      closeSync(out);
      child.unref();
      spawnSync('bash', ['-c', `echo ${child.pid ?? ''} > '${pidFile}'`]);
      while (!(await portOpen(port))) await sleep(200);
      return { downAt, upAt: Date.now() };
    },
    stop: () => void spawnSync('bash', [join(root, 'ops/kafka/stop.sh')], { env, stdio: ['ignore', 'inherit', 'inherit'] }),
    stopAsync: () =>
      new Promise<void>((resolve) =>
        spawn('bash', [join(root, 'ops/kafka/stop.sh')], { env, stdio: ['ignore', 'inherit', 'inherit'] }).once('exit', () => resolve()),
      ),
  };
}
