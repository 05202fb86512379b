import type { CliCommand } from '../command.ts';
import { ROLE_COMMANDS } from './roles.ts';
import { migrateCommand } from './migrate.ts';
import { levelsCommand } from './levels.ts';
import { flowCommand } from './flow.ts';
import { parseCommand } from './parse.ts';
import { keysCommand } from './keys.ts';
import { usersCommand } from './users.ts';
import { backfillCommand } from './backfill.ts';

/** Every `gex` command, in the order `gex --help` lists them. */
export const COMMANDS: readonly CliCommand[] = [...ROLE_COMMANDS, migrateCommand, parseCommand, levelsCommand, flowCommand, backfillCommand, usersCommand, keysCommand];
