import type { CliCommand } from '../command.ts';
import { computeLevelsFromChain } from '#processors/analytics/chain-file.ts';
import { readChainFlag } from '../chain-input.ts';

/**
 * `gex levels --chain FILE [--model std|flow]`: the full levels JSON (the `data` object of /v2/gex/levels with
 * every optional block) for a chain file, for researchers and cross-checks. Pure computation, no store.
 */
export const levelsCommand: CliCommand = {
  name: 'levels',
  usage: 'levels --chain FILE [--model std|flow]',
  summary: 'Print the GEX levels JSON computed from a chain file.',
  async run({ flags }) {
    const model = flags.get('model') ?? 'flow';
    if (model !== 'std' && model !== 'flow') {
      process.stderr.write(`gex levels: --model must be std or flow, got '${model}'\n`);
      return 2;
    }
    const chain = await readChainFlag('levels', flags.get('chain'));
    if (chain === null) return 2;
    process.stdout.write(`${JSON.stringify(computeLevelsFromChain(chain, model), null, 2)}\n`);
    return 0;
  },
};
