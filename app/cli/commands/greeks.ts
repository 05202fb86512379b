import type { CliCommand } from '../command.ts';
import { computeGreeksFromChain } from '#processors/analytics/chain-file.ts';
import { GREEKS, isGreek } from '#processors/analytics/greek-exposure.ts';
import { readChainFlag } from '../chain-input.ts';

/**
 * `gex greeks --chain FILE --greek G [--model std|flow]`: the `data` object of /v2/options/greeks/{greek} for a
 * chain file in the `gex levels --chain` format. Pure computation, no store.
 */
export const greeksCommand: CliCommand = {
  name: 'greeks',
  usage: `greeks --chain FILE --greek ${GREEKS.join('|')} [--model std|flow]`,
  summary: 'Print the dealer greek exposures (USD) computed from a chain file.',
  async run({ flags }) {
    const greek = flags.get('greek') ?? '';
    const model = flags.get('model') ?? 'flow';
    if (!isGreek(greek)) {
      process.stderr.write(`gex greeks: --greek must be one of ${GREEKS.join(', ')}, got '${greek}'\n`);
      return 2;
    }
    if (model !== 'std' && model !== 'flow') {
      process.stderr.write(`gex greeks: --model must be std or flow, got '${model}'\n`);
      return 2;
    }
    const chain = await readChainFlag('greeks', flags.get('chain'));
    if (chain === null) return 2;
    process.stdout.write(`${JSON.stringify(computeGreeksFromChain(chain, greek, model), null, 2)}\n`);
    return 0;
  },
};
