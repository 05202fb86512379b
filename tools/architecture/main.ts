// `npm run arch`: the layer rules over the repository; exit 1 on any violation.
import { fileURLToPath } from 'node:url';
import { checkArchitecture, describeViolation } from './check.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const report = await checkArchitecture(root);
for (const v of report.violations) process.stdout.write(`${describeViolation(v)}\n`);
process.stdout.write(`${report.modules} modules, ${report.violations.length} violation(s)\n`);
process.exitCode = report.violations.length === 0 ? 0 : 1;
