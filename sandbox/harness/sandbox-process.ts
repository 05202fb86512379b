import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** A sandbox market script in its own process, driven over the fork IPC channel (one reply per command). */
export interface SandboxProcess {
  /** The first message the script sent (its URLs). */
  readonly ready: Record<string, unknown>;
  ask(cmd: object): Promise<Record<string, unknown>>;
  /** Sends { cmd: 'stop' } and resolves once the process exited. */
  stop(): Promise<void>;
}

/** Forks `script` (a .ts file, run through tsx, with `args`) and waits for its first message. */
export async function forkSandboxProcess(
  script: URL,
  extraExecArgv: readonly string[] = [],
  args: readonly string[] = [],
): Promise<SandboxProcess> {
  const child: ChildProcess = fork(fileURLToPath(script), [...args], {
    execArgv: ['--import', 'tsx', ...extraExecArgv],
    env: { ...process.env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const replies: ((m: Record<string, unknown>) => void)[] = [];
  child.on('message', (m) => replies.shift()?.(m as Record<string, unknown>));
  const next = (): Promise<Record<string, unknown>> => new Promise((resolve) => replies.push(resolve));
  const ready = await next();
  return {
    ready,
    ask: async (cmd) => {
      const reply = next();
      child.send(cmd);
      return reply;
    },
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.send({ cmd: 'stop' });
      }),
  };
}
