/** Folder names never searched for tests. */
export declare const SKIPPED_FOLDERS: ReadonlySet<string>;
/** Every *.test.ts under `root` (repository-relative, sorted). */
export declare function findTestFiles(root: string): string[];
