/**
 * The chaos harness's process supervisor: spawns each product process (`gex <role>` or a harness entry) with its
 * own environment, appends its stdout/stderr to `<logDir>/<name>.log`, waits until its readiness probe answers,
 * and can SIGKILL / SIGSTOP / SIGCONT / restart it. Only the processes it spawned are ever signalled.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { join } from 'node:path';

export interface ProcessSpec {
  readonly name: string;
  /** Arguments after `node` (e.g. ['--import', 'tsx', 'app/cli/main.ts', 'processors']). */
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  /** Resolves true once the process serves (polled every 200 ms). */
  readonly ready: () => Promise<boolean>;
  readonly readyTimeoutMs?: number;
}

interface Managed {
  readonly spec: ProcessSpec;
  child: ChildProcess;
  exited: Promise<number | null>;
  stopped: boolean;
  /** Set before the supervisor itself ends the process (kill, restart, stopAll): that exit is not a crash. */
  ending: boolean;
}

/** A process that exited by itself (not by the supervisor's kill or stop). */
export interface Crash {
  readonly name: string;
  readonly at: number;
  /** Exit code, -1 when a signal ended it. */
  readonly code: number | null;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export class Supervisor {
  readonly #procs = new Map<string, Managed>();
  readonly #crashes: Crash[] = [];

  constructor(
    private readonly cwd: string,
    readonly logDir: string,
  ) {}

  /** Spawns the process and waits until it is ready (throws, naming the log file, if it exits or times out). */
  async start(spec: ProcessSpec): Promise<void> {
    const fd = openSync(join(this.logDir, `${spec.name}.log`), 'a');
    const child = spawn(process.execPath, [...spec.args], { cwd: this.cwd, env: spec.env, stdio: ['ignore', fd, fd] });
    closeSync(fd);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? -1 : null))));
    const m: Managed = { spec, child, exited, stopped: false, ending: false };
    void exited.then((code) => {
      if (!m.ending) this.#crashes.push({ name: spec.name, at: Date.now(), code });
    });
    this.#procs.set(spec.name, m);
    await this.#waitReady(m);
  }

  async #waitReady(m: Managed): Promise<void> {
    const until = Date.now() + (m.spec.readyTimeoutMs ?? 90_000);
    let gone = false;
    void m.exited.then(() => (gone = true));
    while (Date.now() < until) {
      if (gone) throw new Error(`${m.spec.name} exited during start (log: ${join(this.logDir, `${m.spec.name}.log`)})`);
      if (await m.spec.ready().catch(() => false)) return;
      await sleep(200);
    }
    throw new Error(
      `${m.spec.name} not ready after ${m.spec.readyTimeoutMs ?? 90_000} ms (log: ${join(this.logDir, `${m.spec.name}.log`)})`,
    );
  }

  #get(name: string): Managed {
    const m = this.#procs.get(name);
    if (!m) throw new Error(`no process ${name}`);
    return m;
  }

  pid(name: string): number {
    return this.#get(name).child.pid ?? -1;
  }

  alive(name: string): boolean {
    const m = this.#procs.get(name);
    return m !== undefined && m.child.exitCode === null && m.child.signalCode === null;
  }

  /** Every process that exited by itself since the supervisor started, oldest first. */
  crashes(): readonly Crash[] {
    return [...this.#crashes];
  }

  /** SIGKILL; resolves once the process is gone. */
  async kill(name: string): Promise<void> {
    const m = this.#get(name);
    if (!this.alive(name)) return;
    m.ending = true;
    m.child.kill('SIGKILL');
    await m.exited;
  }

  pause(name: string): void {
    this.#get(name).child.kill('SIGSTOP');
    this.#get(name).stopped = true;
  }

  resume(name: string): void {
    this.#get(name).child.kill('SIGCONT');
    this.#get(name).stopped = false;
  }

  /** Starts the process again with the same spec (after a kill or an exit). */
  async restart(name: string): Promise<void> {
    const m = this.#get(name);
    if (this.alive(name)) await this.kill(name);
    await this.start(m.spec);
  }

  /** Every process that died (exited, killed) is started again; paused ones are resumed. */
  async heal(): Promise<string[]> {
    const healed: string[] = [];
    for (const [name, m] of this.#procs) {
      if (m.stopped) this.resume(name);
      if (!this.alive(name)) {
        await this.start(m.spec);
        healed.push(name);
      }
    }
    return healed;
  }

  /** SIGTERM to every process (reverse start order), SIGKILL after `graceMs`. */
  async stopAll(graceMs = 15_000): Promise<void> {
    const all = [...this.#procs.values()].reverse();
    for (const m of all) {
      m.ending = true;
      if (m.stopped) m.child.kill('SIGCONT');
      if (m.child.exitCode === null && m.child.signalCode === null) m.child.kill('SIGTERM');
      const done = await Promise.race([m.exited.then(() => true), sleep(graceMs).then(() => false)]);
      if (!done) {
        m.child.kill('SIGKILL');
        await m.exited;
      }
    }
    this.#procs.clear();
  }
}
