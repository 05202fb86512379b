import { createInterface } from 'node:readline';
import type { CliCommand } from '../command.ts';
import { parseFrames } from '#ingest/connector/parse-cli.ts';
import { connectorVenues } from '#ingest/venues/registry.ts';

/**
 * `gex parse --venue V [--connection C]`: raw frames on stdin (one per line) -> normalized events as JSON lines
 * on stdout, dead-letter reasons on stderr, a summary line on stderr. A debugging tool for data engineers.
 */
export const parseCommand: CliCommand = {
  name: 'parse',
  usage: 'parse --venue V [--connection C]',
  summary: 'Parse raw venue frames from stdin into normalized events (JSON lines).',
  async run({ flags }) {
    const venue = flags.get('venue');
    const venues = connectorVenues();
    if (!venue || !(venues as readonly string[]).includes(venue)) {
      process.stderr.write(`gex parse: --venue must be one of ${venues.join(', ')}\n`);
      return 2;
    }
    const connection = flags.get('connection');
    const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
    const summary = await parseFrames(
      venue,
      lines,
      (line) => process.stdout.write(`${line}\n`),
      (line) => process.stderr.write(`${line}\n`),
      connection ? { connection } : {},
    );
    process.stderr.write(`${JSON.stringify({ summary })}\n`);
    return 0;
  },
};
