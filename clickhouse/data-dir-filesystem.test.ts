import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dataDirFileSystem, ext4HasJournal, fileSystemWarning, mountOf, type ReadText } from './data-dir-filesystem.ts';

// Recorded on the project's 2-core machine (2026-12-01): its root, ext4 without a journal, and a journaled ext4 on a
// loop device; /proc/fs/ext4/<device>/options of each, as the kernel wrote them.
const MOUNTS = [
  '/dev/vda / ext4 rw,relatime,discard,resv_strict,resuid=65534,resgid=65534 0 0',
  'proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0',
  'tmpfs /dev/shm tmpfs rw,relatime,size=24683652k 0 0',
  '/dev/loop0 /mnt/jext4 ext4 rw,relatime 0 0',
  '/dev/loop1 /mnt/with\\040space ext4 rw,relatime 0 0',
].join('\n');
const ROOT_OPTIONS =
  'rw bsddf nogrpid block_validity dioread_nolock discard delalloc nowarn_on_error nojournal_checksum barrier auto_da_alloc user_xattr acl noquota resv_strict resuid=65534 resgid=65534 errors=continue commit=5 min_batch_time=0 max_batch_time=15000 i_version stripe=0 inode_readahead_blks=32 init_itable=10 max_dir_size_kb=0 prefetch_block_bitmaps\n';
const LOOP_OPTIONS =
  'rw bsddf nogrpid block_validity dioread_nolock nodiscard delalloc nowarn_on_error journal_checksum barrier auto_da_alloc user_xattr acl noquota resuid=0 resgid=0 errors=continue commit=5 min_batch_time=0 max_batch_time=15000 i_version stripe=0 data=ordered inode_readahead_blks=32 init_itable=10 max_dir_size_kb=0 prefetch_block_bitmaps\n';

test('mountOf: the longest mount point a path is under, escaped names read', () => {
  assert.deepEqual(mountOf('/tmp/gex-ch-1', MOUNTS), { device: '/dev/vda', mountPoint: '/', type: 'ext4' });
  assert.deepEqual(mountOf('/dev/shm/x', MOUNTS), { device: 'tmpfs', mountPoint: '/dev/shm', type: 'tmpfs' });
  assert.deepEqual(mountOf('/mnt/jext4', MOUNTS), { device: '/dev/loop0', mountPoint: '/mnt/jext4', type: 'ext4' });
  assert.deepEqual(mountOf('/mnt/jext4x/a', MOUNTS)?.mountPoint, '/', 'a name that only starts like a mount point');
  assert.deepEqual(mountOf('/mnt/with space/data', MOUNTS), { device: '/dev/loop1', mountPoint: '/mnt/with space', type: 'ext4' });
  assert.equal(mountOf('/x', ''), null);
});

test('ext4HasJournal: a journaled mount lists its data mode, one without a journal none', () => {
  assert.equal(ext4HasJournal(LOOP_OPTIONS), true);
  assert.equal(ext4HasJournal(ROOT_OPTIONS), false, 'nojournal_checksum is not a data mode');
  assert.equal(ext4HasJournal('rw data=writeback'), true);
});

test('dataDirFileSystem reads the mount and the ext4 options of the data directory; unknown when /proc does not tell', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gex-fs-'));
  try {
    const real = realpathSync(dir);
    const mounts = `/dev/vda / ext4 rw 0 0\n/dev/loop0 ${real} ext4 rw 0 0\n`;
    const files = (extra: Record<string, string>): ReadText => {
      const all: Record<string, string> = { '/proc/self/mounts': mounts, ...extra };
      return (path) => all[path] ?? null;
    };
    assert.deepEqual(dataDirFileSystem(dir, files({ '/proc/fs/ext4/loop0/options': LOOP_OPTIONS })), {
      device: '/dev/loop0',
      mountPoint: real,
      type: 'ext4',
      journaled: true,
    });
    const bare = dataDirFileSystem(dir, files({ '/proc/fs/ext4/loop0/options': ROOT_OPTIONS }));
    assert.equal(bare?.journaled, false);
    assert.equal(dataDirFileSystem(dir, files({}))?.journaled, null, 'no options file');
    assert.equal(
      dataDirFileSystem(dir, () => null),
      null,
      'no /proc',
    );
    assert.equal(dataDirFileSystem(join(dir, 'missing'), files({})), null, 'a directory that does not exist');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('fileSystemWarning: only ext4 known to have no journal', () => {
  const root = { device: '/dev/vda', mountPoint: '/', type: 'ext4' };
  assert.match(fileSystemWarning({ ...root, journaled: false }) ?? '', /ext4 without a journal \(\/dev\/vda at \/\)/);
  assert.equal(fileSystemWarning({ ...root, journaled: true }), null);
  assert.equal(fileSystemWarning({ ...root, journaled: null }), null);
  assert.equal(fileSystemWarning({ device: 'tmpfs', mountPoint: '/dev/shm', type: 'tmpfs', journaled: null }), null);
  assert.equal(fileSystemWarning(null), null);
});

test('on this machine, the mount found for a temp directory is the one findmnt reports', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gex-fs-'));
  try {
    const found = dataDirFileSystem(dir);
    const [target, fstype] = execFileSync('findmnt', ['-n', '-o', 'TARGET,FSTYPE', '-T', dir], { encoding: 'utf8' }).trim().split(/\s+/);
    assert.equal(found?.mountPoint, target);
    assert.equal(found?.type, fstype);
    if (found?.type === 'ext4') assert.equal(typeof found.journaled, 'boolean', 'ext4 lists its options under /proc/fs/ext4');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
