/** Folder names never searched for tests. */
export declare const SKIPPED_FOLDERS: ReadonlySet<string>;
/** Every *.test.ts under `root` (repository-relative, sorted). */
export declare function findTestFiles(root: string): string[];
/** A unit test (repository-relative path): not a Kafka, Prometheus or browser suite file, not under test/e2e/, not directly in app/cli/. */
export declare function isUnitTest(file: string): boolean;
/** The longest test files: the broker outage test, started first, and the longest of the multi-process suites. */
export declare const LONGEST_FIRST: readonly string[];
/** The order `npm test` starts `files` in: the outage test, the unit tests, the flow routes' test, the other suites. */
export declare function runOrder(files: readonly string[]): string[];
