/**
 * The file system under the embedded store's data directory, read from Linux's `/proc` (null elsewhere or when
 * unreadable). What it is for: on ext4 mounted without a journal, the kernel's inode allocator skips every inode freed
 * in the last 5-35 s by reading it (`recently_deleted`), and the engine frees inodes all the time (each merge removes
 * its source parts at once, ~12 files a part). Every part an INSERT writes then costs more: 750 option trades took
 * 50-70 ms of CPU (19-35 of it in the kernel) on such a root file system against 43 ms (6) on a journaled ext4 on the
 * same machine (`bench/store-insert-cost.ts`; clickhouse/README.md "File system").
 */
import { readFileSync, realpathSync } from 'node:fs';
import { basename } from 'node:path';

/** One line of `/proc/self/mounts`. */
export interface Mount {
  readonly device: string;
  readonly mountPoint: string;
  readonly type: string;
}

/** The file system of the data directory; `journaled` is null when it cannot be told (not ext4, or no options file). */
export interface DataDirFileSystem extends Mount {
  readonly journaled: boolean | null;
}

/** `/proc/self/mounts` escapes space, tab, newline and backslash as octal (`\040`). */
const unescapeMountField = (field: string): string =>
  field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));

/** The mount that holds `path` (absolute, symlinks resolved): the longest mount point it is under; the last one wins a tie. */
export function mountOf(path: string, mountsText: string): Mount | null {
  let best: Mount | null = null;
  for (const line of mountsText.split('\n')) {
    const fields = line.split(' ');
    if (fields.length < 3) continue;
    const mountPoint = unescapeMountField(fields[1] as string);
    const under = mountPoint === '/' || path === mountPoint || path.startsWith(`${mountPoint}/`);
    if (under && (best === null || mountPoint.length >= best.mountPoint.length))
      best = { device: unescapeMountField(fields[0] as string), mountPoint, type: fields[2] as string };
  }
  return best;
}

/**
 * Whether an ext4 mount has a journal, from its `/proc/fs/ext4/<device>/options`: that file lists every option in
 * effect, and a journaled mount always has its data mode (`data=ordered`, `data=journal` or `data=writeback`); without
 * a journal the kernel clears the data mode and lists none.
 */
export function ext4HasJournal(optionsText: string): boolean {
  return optionsText.split(/\s+/).some((option) => option.startsWith('data='));
}

/** Reads a text file, or null when it cannot be read. */
export type ReadText = (path: string) => string | null;

const readText: ReadText = (path) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
};

/** The name ext4 lists a block device under in /proc/fs/ext4 (`/dev/vda` -> `vda`, `/dev/mapper/x` -> `dm-0`). */
function ext4DeviceNames(device: string): string[] {
  const names = [basename(device)];
  try {
    names.push(basename(realpathSync(device)));
  } catch {
    // not a path on this machine: the basename is all there is
  }
  return names;
}

/** The file system holding `dataPath` (which must exist), or null when /proc does not tell (not Linux). */
export function dataDirFileSystem(dataPath: string, read: ReadText = readText): DataDirFileSystem | null {
  const mounts = read('/proc/self/mounts');
  if (mounts === null) return null;
  let path: string;
  try {
    path = realpathSync(dataPath);
  } catch {
    return null;
  }
  const mount = mountOf(path, mounts);
  if (mount === null) return null;
  if (mount.type !== 'ext4') return { ...mount, journaled: null };
  for (const name of ext4DeviceNames(mount.device)) {
    const options = read(`/proc/fs/ext4/${name}/options`);
    if (options !== null) return { ...mount, journaled: ext4HasJournal(options) };
  }
  return { ...mount, journaled: null };
}

/** The warning the embedded store logs when it opens on ext4 without a journal; null on any other file system. */
export function fileSystemWarning(fileSystem: DataDirFileSystem | null): string | null {
  if (fileSystem?.type !== 'ext4' || fileSystem.journaled !== false) return null;
  return (
    `the embedded store's data directory is on ext4 without a journal (${fileSystem.device} at ${fileSystem.mountPoint}): ` +
    'every part the engine writes costs about twice the time and CPU there; put it on a journaled file system ' +
    '(clickhouse/README.md "File system")'
  );
}
