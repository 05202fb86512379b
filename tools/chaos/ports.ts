/** Ports and readiness probes of the harness's processes. */
export { freePort } from '../free-port.ts';

/** True when `url` answers with status 200 within 2 s. */
export async function answers200(url: string, headers: Record<string, string> = {}): Promise<boolean> {
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}
