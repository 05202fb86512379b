import type { CliCommand } from '../command.ts';
import { ROLE_COMMANDS } from './roles.ts';
import { migrateCommand } from './migrate.ts';
import { levelsCommand } from './levels.ts';

/** Every `gex` command, in the order `gex --help` lists them. */
export const COMMANDS: readonly CliCommand[] = [...ROLE_COMMANDS, migrateCommand, levelsCommand];
