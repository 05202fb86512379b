import { readFile } from 'node:fs/promises';
import type { CliCommand } from '../command.ts';
import { parseChainFile, computeLevelsFromChain } from '../../../../processors/analytics/chain-file.ts';

/**
 * `gex levels --chain FILE [--model std|flow]`: the full levels JSON (the `data` object of /v2/gex/levels with
 * every optional block) for a chain file, for researchers and cross-checks. Pure computation, no store.
 */
export const levelsCommand: CliCommand = {
  name: 'levels',
  usage: 'levels --chain FILE [--model std|flow]',
  summary: 'Print the GEX levels JSON computed from a chain file.',
  async run({ flags }) {
    const file = flags.get('chain');
    const model = flags.get('model') ?? 'flow';
    if (!file || file === 'true') {
      process.stderr.write('gex levels: --chain FILE is required\n');
      return 2;
    }
    if (model !== 'std' && model !== 'flow') {
      process.stderr.write(`gex levels: --model must be std or flow, got '${model}'\n`);
      return 2;
    }
    let json: unknown;
    try {
      json = JSON.parse(await readFile(file, 'utf8'));
    } catch (err) {
      process.stderr.write(`gex levels: cannot read ${file}: ${(err as Error).message}\n`);
      return 2;
    }
    const parsed = parseChainFile(json);
    if (!parsed.ok) {
      process.stderr.write(`gex levels: invalid chain file:\n  ${parsed.errors.join('\n  ')}\n`);
      return 2;
    }
    process.stdout.write(`${JSON.stringify(computeLevelsFromChain(parsed.chain, model), null, 2)}\n`);
    return 0;
  },
};
