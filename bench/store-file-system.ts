/**
 * The line a store bench prints about the file system its temp stores are on (TMPDIR): on ext4 without a journal
 * every part the engine writes costs more, the more files were deleted on it in the last seconds
 * (clickhouse/README.md "File system"), so figures from such a machine compare only with the same condition.
 */
import { tmpdir } from 'node:os';
import { dataDirFileSystem } from '#clickhouse/data-dir-filesystem.ts';

export function storeFileSystemLine(): string {
  const fileSystem = dataDirFileSystem(tmpdir());
  if (fileSystem === null) return `stores in ${tmpdir()}: file system unknown`;
  const journal = fileSystem.journaled === true ? ', journaled' : fileSystem.journaled === false ? ', no journal' : '';
  const note = fileSystem.journaled === false ? ' (each part written costs more here: clickhouse/README.md "File system")' : '';
  return `stores in ${tmpdir()}: ${fileSystem.type} at ${fileSystem.mountPoint}${journal}${note}`;
}
