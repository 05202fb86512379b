import type { CliCommand } from '../command.ts';
import { ROLE_COMMANDS } from './roles.ts';
import { migrateCommand } from './migrate.ts';
import { levelsCommand } from './levels.ts';
import { studyCommand } from './study.ts';
import { replayCommand } from './replay.ts';
import { greeksCommand } from './greeks.ts';
import { chainCommand } from './chain.ts';
import { smileCommand } from './smile.ts';
import { flowCommand } from './flow.ts';
import { rangeCommand } from './range.ts';
import { parseCommand } from './parse.ts';
import { keysCommand } from './keys.ts';
import { usersCommand } from './users.ts';
import { backfillCommand } from './backfill.ts';
import { loadCommand } from './load.ts';
import { cotCommand, holdersCommand } from './research.ts';
import { fetchCommand } from './fetch.ts';
import { sqlCommand } from './sql.ts';
import { watchCommand } from './watch.ts';

/** Every `gex` command, in the order `gex --help` lists them. */
export const COMMANDS: readonly CliCommand[] = [
  ...ROLE_COMMANDS,
  migrateCommand,
  sqlCommand,
  parseCommand,
  levelsCommand,
  studyCommand,
  replayCommand,
  greeksCommand,
  chainCommand,
  smileCommand,
  flowCommand,
  rangeCommand,
  backfillCommand,
  loadCommand,
  fetchCommand,
  cotCommand,
  holdersCommand,
  usersCommand,
  keysCommand,
  watchCommand,
];
