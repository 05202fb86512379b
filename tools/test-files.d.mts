/** Folder names never searched for tests. */
export declare const SKIPPED_FOLDERS: ReadonlySet<string>;
/** Every *.test.ts under `root` (repository-relative, sorted). */
export declare function findTestFiles(root: string): string[];
/** A unit test (repository-relative path): not a Kafka, Prometheus or browser suite file, not under test/e2e/, not directly in app/cli/. */
export declare function isUnitTest(file: string): boolean;
