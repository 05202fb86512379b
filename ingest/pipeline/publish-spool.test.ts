import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PublishSpool } from './publish-spool.ts';
import { decodeSpoolRecords, encodeSpoolRecord } from './spool-record.ts';

const msg = (i: number): { key: string; value: Buffer } => ({ key: `k${i % 3}`, value: Buffer.from(`value-${i}`) });
const segments = (dir: string): string[] => readdirSync(dir).filter((n) => n.endsWith('.spool'));

function withDir(fn: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'gex-spool-'));
  try {
    fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a spool record round-trips topic, key, value, headers and timestamp; a cut record is not decoded', () => {
  const a = encodeSpoolRecord('t.one', { key: 'k', value: Buffer.from([0, 1, 2, 255]), headers: { h: 'v' }, timestamp: 1700000000123 });
  const b = encodeSpoolRecord('t.two', { key: '', value: Buffer.alloc(0) });
  // 8 header bytes + meta JSON + value
  assert.equal(a.length, 8 + Buffer.byteLength('{"t":"t.one","k":"k","h":{"h":"v"},"ts":1700000000123}') + 4);
  const r = decodeSpoolRecords(Buffer.concat([a, b, b.subarray(0, 5)]), 10);
  assert.equal(r.corrupt, false);
  assert.equal(r.used, a.length + b.length);
  assert.deepEqual(r.records, [
    { topic: 't.one', message: { key: 'k', value: Buffer.from([0, 1, 2, 255]), headers: { h: 'v' }, timestamp: 1700000000123 } },
    { topic: 't.two', message: { key: '', value: Buffer.alloc(0) } },
  ]);
  assert.equal(decodeSpoolRecords(Buffer.concat([a, b]), 1).records.length, 1, 'at most max records');
  const bad = Buffer.from(a);
  bad.writeUInt32LE(10_000, 4); // meta longer than the record
  assert.equal(decodeSpoolRecords(bad, 10).corrupt, true);
});

test('messages come back in append order across segment files, and a segment is deleted once its batches are released', () =>
  withDir((dir) => {
    const spool = new PublishSpool({ dir, maxBytes: 1 << 30, segmentBytes: 200 }).open();
    for (let i = 0; i < 50; i++) spool.append('topic', msg(i));
    spool.flush();
    assert.ok(segments(dir).length > 3, `rolled over into several segments (${segments(dir).length})`);
    const bytes = spool.bytes;
    assert.ok(bytes > 50 * 20);
    const seen: string[] = [];
    const batches = [];
    for (let b = spool.take(7); b !== null; b = spool.take(7)) {
      batches.push(b);
      seen.push(...b.records.map((r) => r.message.value.toString()));
    }
    assert.deepEqual(
      seen,
      Array.from({ length: 50 }, (_, i) => `value-${i}`),
    );
    assert.equal(spool.hasUnread, false);
    assert.equal(spool.bytes, bytes, 'nothing deleted before a release');
    for (const b of batches) b.release();
    assert.deepEqual(segments(dir), [], 'every segment deleted');
    assert.equal(spool.bytes, 0);
    spool.append('topic', msg(99));
    assert.equal(spool.hasUnread, true);
    assert.equal(spool.take(10)?.records[0]?.message.value.toString(), 'value-99');
    spool.close();
  }));

test('a batch not released keeps its segment: the next process reads it again (at least once), after a torn tail is passed over', () =>
  withDir((dir) => {
    const first = new PublishSpool({ dir, maxBytes: 1 << 30 }).open();
    for (let i = 0; i < 10; i++) first.append('topic', msg(i));
    const taken = first.take(4);
    assert.equal(taken?.records.length, 4);
    first.close(); // the process stops with the batch not published
    const [name] = segments(dir);
    assert.ok(name !== undefined);
    appendFileSync(join(dir, name), encodeSpoolRecord('topic', msg(10)).subarray(0, 9)); // a write cut by a crash
    const next = new PublishSpool({ dir, maxBytes: 1 << 30 }).open();
    assert.equal(next.hasUnread, true);
    const values: string[] = [];
    for (let b = next.take(100); b !== null; b = next.take(100)) {
      values.push(...b.records.map((r) => r.message.value.toString()));
      b.release();
    }
    assert.deepEqual(
      values,
      Array.from({ length: 10 }, (_, i) => `value-${i}`),
    );
    assert.deepEqual(segments(dir), []);
    next.close();
  }));

test('a directory held by another live process is refused', () =>
  withDir((dir) => {
    writeFileSync(join(dir, 'owner.pid'), String(process.ppid));
    assert.throws(() => new PublishSpool({ dir, maxBytes: 1 }).open(), /in use by process/);
    writeFileSync(join(dir, 'owner.pid'), '999999999'); // gone: taken over
    const spool = new PublishSpool({ dir, maxBytes: 1 }).open();
    spool.close();
  }));
