/**
 * The end of the role outage test: a deployment's stored option trades against the sandbox ledger slice of the whole
 * run (tools/chaos/ledger-compare.ts), once its raw writers committed the option trades (the model's own trickle
 * goes on: within 100 messages), compared again every 2 s until nothing is lost or the lost count stays the same 3
 * times in a row (at most 180 s).
 */
import type { SandboxProcess } from '#sandbox/harness/sandbox-process.ts';
import { compareSlice, type LedgerMark, type LedgerSlice, type TradeCount } from '../ledger-compare.ts';
import type { Deployment } from './deployments.ts';

const DRAINED_PENDING = 100;
const SETTLE_MS = 180_000;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function compareWithSandbox(
  d: Deployment,
  sandbox: SandboxProcess,
  mark: LedgerMark,
  until: LedgerMark,
  sinceMs: number,
): Promise<TradeCount> {
  const deadline = Date.now() + SETTLE_MS;
  while (Date.now() < deadline && !((await d.kafka.pending().catch(() => Infinity)) <= DRAINED_PENDING)) await sleep(500);
  const slice = (await sandbox.ask({ cmd: 'ledger', mark, until }))['slice'] as LedgerSlice;
  const seen: number[] = [];
  for (;;) {
    const count = await compareSlice(d.store, slice, sinceMs);
    seen.push(count.lost);
    const last3 = seen.slice(-3);
    if (count.lost === 0 || (last3.length === 3 && last3.every((n) => n === last3[0])) || Date.now() > deadline) return count;
    await sleep(2000);
  }
}
