/** Folder names never searched for tests. */
export declare const SKIPPED_FOLDERS: ReadonlySet<string>;
/** Every *.test.ts under `root` (repository-relative, sorted). */
export declare function findTestFiles(root: string): string[];
/** A unit test (repository-relative path): not a Kafka, Prometheus or browser suite file, not under test/e2e/, not directly in app/cli/. */
export declare function isUnitTest(file: string): boolean;
/** The longest test files, started first in this order. */
export declare const LONGEST_FIRST: readonly string[];
/** `files` with those of LONGEST_FIRST in front, in that order; the others keep their order. */
export declare function longestFirst(files: readonly string[]): string[];
