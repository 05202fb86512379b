/**
 * A TCP port free right now on 127.0.0.1, for harnesses that start processes which listen on it. Chosen below the
 * kernel's ephemeral range (ip_local_port_range, 32768-60999 by default): a port the OS hands out for `listen(0)` is
 * also what it hands out to every outgoing connection, and a child that needs seconds to start (tsx, migrations) then
 * found it taken by another test's client socket (EADDRINUSE). Below the range only another harness's pick or a fixed
 * listener can take it; each pick is checked by binding it and is never handed out twice in a process.
 */
import net from 'node:net';
import { readFileSync } from 'node:fs';

const PICKS_FROM = 20_000;
const given = new Set<number>();

/** First port of the kernel's ephemeral range (Linux), else IANA's 49152. */
function ephemeralStart(): number {
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(first) && first > PICKS_FROM + 1_000) return first;
  } catch {
    // not Linux: the IANA range
  }
  return 49_152;
}

const bindable = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });

const anyPort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });

export async function freePort(): Promise<number> {
  const end = ephemeralStart();
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = PICKS_FROM + Math.floor(Math.random() * (end - PICKS_FROM));
    if (given.has(port)) continue;
    given.add(port); // before the check: concurrent picks in this process never meet
    if (await bindable(port)) return port;
    given.delete(port);
  }
  return anyPort();
}
