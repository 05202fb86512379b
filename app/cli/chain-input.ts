import { readFile } from 'node:fs/promises';
import { parseChainFile } from '#processors/analytics/chain-file.ts';
import type { ChainSnapshot } from '#processors/analytics/types.ts';

/**
 * The `--chain FILE` input of `gex levels` and `gex greeks`: the parsed chain, or null after writing the reason
 * (missing flag, unreadable file, every problem of an invalid chain) to stderr prefixed with `gex <command>`.
 */
export async function readChainFlag(command: string, file: string | undefined): Promise<ChainSnapshot | null> {
  if (!file || file === 'true') {
    process.stderr.write(`gex ${command}: --chain FILE is required\n`);
    return null;
  }
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    process.stderr.write(`gex ${command}: cannot read ${file}: ${(err as Error).message}\n`);
    return null;
  }
  const parsed = parseChainFile(json);
  if (!parsed.ok) {
    process.stderr.write(`gex ${command}: invalid chain file:\n  ${parsed.errors.join('\n  ')}\n`);
    return null;
  }
  return parsed.chain;
}
