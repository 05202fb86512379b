/** Folder names never searched for tests. */
export declare const SKIPPED_FOLDERS: ReadonlySet<string>;
/** Every *.test.ts under `root` (repository-relative, sorted). */
export declare function findTestFiles(root: string): string[];
/** A unit test (repository-relative path): not a Kafka, Prometheus or browser suite file, not under test/e2e/, not directly in app/cli/. */
export declare function isUnitTest(file: string): boolean;
/** Files run by a second test runner alongside the main one (minutes of mostly waiting). */
export declare const ALONGSIDE: readonly string[];
/** `files` split into those of the main runner and those of ALONGSIDE; order kept. */
export declare function splitAlongside(files: readonly string[]): { main: string[]; alongside: string[] };
