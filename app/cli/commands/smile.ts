import type { CliCommand } from '../command.ts';
import { chainFileRows } from '#processors/analytics/chain-quotes.ts';
import { smileView, termStructureView } from '#query-api/options/iv-views.ts';
import { readChainFlag } from '../chain-input.ts';

/**
 * `gex smile --chain FILE [--per-venue]`: `{smile, term_structure}` = the `data` of /v2/options/iv/smile and
 * /v2/options/iv/term-structure for a chain file in the `gex levels --chain` format (no bid/ask IVs in that format:
 * they print null). Pure computation, no store.
 */
export const smileCommand: CliCommand = {
  name: 'smile',
  usage: 'smile --chain FILE [--per-venue]',
  summary: 'Print the IV smile per expiry and the term structure computed from a chain file.',
  async run({ flags }) {
    const chain = await readChainFlag('smile', flags.get('chain'));
    if (chain === null) return 2;
    const input = { symbol: chain.symbol, t: chain.now, spot: chain.spot, rows: chainFileRows(chain) };
    process.stdout.write(
      `${JSON.stringify({ smile: smileView(input, flags.has('per-venue')), term_structure: termStructureView(input) }, null, 2)}\n`,
    );
    return 0;
  },
};
