import { loadConfig, settingsHelp, splitArgs, ConfigError } from '#platform/settings.ts';
import type { CliCommand } from './command.ts';

/**
 * `gex <command>`: one entry for every role (ingest | processors | query-api | all), the offline demo and the
 * maintenance commands. Settings come from flags, then environment variables, then defaults (see --help).
 */
function help(COMMANDS: readonly CliCommand[]): string {
  const cmds = COMMANDS.map((c) => `  ${c.usage.padEnd(44)} ${c.summary}`).join('\n');
  return `Usage: gex <command> [options]\n\nCommands:\n${cmds}\n\nSettings (flag, environment variable, default):\n${settingsHelp()}\n`;
}

function answersTo(c: CliCommand, name: string): boolean {
  return c.name === name || (c.aliases ?? []).includes(name);
}

async function main(argv: readonly string[]): Promise<number> {
  const { flags, positionals } = splitArgs(argv);
  // The log level and format must be known before any module creates its logger, so commands load after this.
  const level = flags.get('log-level');
  if (level) process.env.LOG_LEVEL = level;
  const format = flags.get('log-format');
  if (format) process.env.LOG_FORMAT = format;
  const { COMMANDS } = await import('./commands/index.ts');
  const { logProcessWarnings } = await import('../runtime/warnings.ts');
  const { childLogger } = await import('#platform/log.ts');
  logProcessWarnings(childLogger('runtime'));
  const name = positionals[0];
  if (!name || name === 'help' || flags.has('help') || flags.has('h')) {
    process.stdout.write(help(COMMANDS));
    return name && name !== 'help' && !COMMANDS.some((c) => answersTo(c, name)) ? 2 : 0;
  }
  const command = COMMANDS.find((c) => answersTo(c, name));
  if (!command) {
    process.stderr.write(`gex: unknown command '${name}'\n\n${help(COMMANDS)}`);
    return 2;
  }
  try {
    const config = loadConfig(process.env, flags);
    return await command.run({ config, positionals: positionals.slice(1), flags });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`gex: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`gex: fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
