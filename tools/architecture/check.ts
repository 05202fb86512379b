import { cruise } from 'dependency-cruiser';
import type { ICruiseResult, IViolation } from 'dependency-cruiser';
import { cruiseConfiguration, CRUISED, FOLDERS, type Folder } from './layers.ts';

export interface ArchitectureReport {
  readonly modules: number;
  readonly violations: readonly IViolation[];
}

/** Cruises `paths` under `baseDir` with the folder rules and returns every violation. */
export async function checkArchitecture(
  baseDir: string,
  paths: readonly string[] = CRUISED,
  folders: readonly Folder[] = FOLDERS,
): Promise<ArchitectureReport> {
  const config = cruiseConfiguration(folders);
  const previous = process.cwd();
  // dependency-cruiser reports and matches paths relative to the working directory.
  process.chdir(baseDir);
  try {
    const { output } = await cruise([...paths], {
      ...config.options,
      validate: true,
      ruleSet: { forbidden: config.forbidden ?? [] },
      outputType: 'json',
    } as Parameters<typeof cruise>[1]);
    const result = (typeof output === 'string' ? JSON.parse(output) : output) as ICruiseResult;
    return { modules: result.modules.length, violations: result.summary.violations };
  } finally {
    process.chdir(previous);
  }
}

export function describeViolation(v: IViolation): string {
  const cycle = v.cycle && v.cycle.length > 0 ? ` (cycle: ${v.cycle.map((c) => c.name).join(' -> ')})` : '';
  return `${v.rule.name}: ${v.from} -> ${v.to}${cycle}`;
}
