import type { Config } from '#platform/settings.ts';

/** One CLI command: `gex <name> [args] [--flags]`. */
export interface CliCommand {
  readonly name: string;
  /** Other names the command answers to (earlier role names). */
  readonly aliases?: readonly string[];
  readonly usage: string;
  readonly summary: string;
  /** Resolves to the process exit code. Long-running roles resolve when they have shut down. */
  run(args: CommandArgs): Promise<number>;
}

export interface CommandArgs {
  readonly config: Config;
  readonly positionals: readonly string[];
  readonly flags: ReadonlyMap<string, string>;
}
