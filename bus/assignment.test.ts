import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { assignLeasePartitions, assignPartitions } from './assignment.ts';

const parts = (list: readonly { topic: string; partition: number }[] | undefined): string[] =>
  (list ?? []).map((tp) => `${tp.topic}-${tp.partition}`);

describe('assignPartitions', () => {
  test('range: 7 partitions over 3 members -> 3,2,2 consecutive, by member id', () => {
    const r = assignPartitions(
      'range',
      [
        { id: 'c', topics: ['t'] },
        { id: 'a', topics: ['t'] },
        { id: 'b', topics: ['t'] },
      ],
      new Map([['t', 7]]),
    );
    assert.deepEqual(parts(r.get('a')), ['t-0', 't-1', 't-2']);
    assert.deepEqual(parts(r.get('b')), ['t-3', 't-4']);
    assert.deepEqual(parts(r.get('c')), ['t-5', 't-6']);
  });

  test('range: only subscribers of a topic get its partitions', () => {
    const r = assignPartitions(
      'range',
      [
        { id: 'a', topics: ['x', 'y'] },
        { id: 'b', topics: ['y'] },
      ],
      new Map([
        ['x', 2],
        ['y', 2],
      ]),
    );
    assert.deepEqual(parts(r.get('a')), ['x-0', 'x-1', 'y-0']);
    assert.deepEqual(parts(r.get('b')), ['y-1']);
  });

  test('roundrobin: partitions of all topics dealt in turn', () => {
    const r = assignPartitions(
      'roundrobin',
      [
        { id: 'a', topics: ['x', 'y'] },
        { id: 'b', topics: ['x', 'y'] },
      ],
      new Map([
        ['x', 3],
        ['y', 2],
      ]),
    );
    assert.deepEqual(parts(r.get('a')), ['x-0', 'x-2', 'y-1']);
    assert.deepEqual(parts(r.get('b')), ['x-1', 'y-0']);
  });

  test('more members than partitions: the extra members get nothing', () => {
    const r = assignPartitions(
      'range',
      [
        { id: 'a', topics: ['t'] },
        { id: 'b', topics: ['t'] },
        { id: 'c', topics: ['t'] },
      ],
      new Map([['t', 2]]),
    );
    assert.deepEqual(parts(r.get('a')), ['t-0']);
    assert.deepEqual(parts(r.get('b')), ['t-1']);
    assert.deepEqual(parts(r.get('c')), []);
  });
});

describe('assignLeasePartitions', () => {
  const member = (id: string, holdsLease: boolean, topics: readonly string[] = ['t']) => ({ id, topics, holdsLease });

  test('the holder keeps partition 0; its round-robin partition goes to the member round-robin gave partition 0', () => {
    // round-robin: m1 t-0, m2 t-1, m3 t-2
    const r = assignLeasePartitions([member('m1', false), member('m2', false), member('m3', true)], new Map([['t', 3]]));
    assert.deepEqual(parts(r.get('m1')), ['t-2']);
    assert.deepEqual(parts(r.get('m2')), ['t-1']);
    assert.deepEqual(parts(r.get('m3')), ['t-0']);
  });

  test('no holder: round-robin; a holder that round-robin gives partition 0 anyway: round-robin', () => {
    const members = [member('b', false), member('a', false)];
    const rr = assignPartitions('roundrobin', members, new Map([['t', 2]]));
    assert.deepEqual(assignLeasePartitions(members, new Map([['t', 2]])), rr);
    const withHolder = assignLeasePartitions([member('a', true), member('b', false)], new Map([['t', 2]]));
    assert.deepEqual(parts(withHolder.get('a')), ['t-0']);
    assert.deepEqual(parts(withHolder.get('b')), ['t-1']);
  });

  test('two members claim the lease: the first by id keeps it; a holder with no partition of the topic only gains', () => {
    const r = assignLeasePartitions([member('a', false), member('c', true), member('b', true)], new Map([['t', 1]]));
    assert.deepEqual(parts(r.get('a')), []);
    assert.deepEqual(parts(r.get('b')), ['t-0']);
    assert.deepEqual(parts(r.get('c')), []);
  });

  test('only topics the holder subscribes are moved, the others stay round-robin', () => {
    // round-robin over x-0, x-1, y-0, y-1: a x-0, b x-1, a y-0, (b does not subscribe y) a y-1
    const r = assignLeasePartitions(
      [member('a', false, ['x', 'y']), member('b', true, ['x'])],
      new Map([
        ['x', 2],
        ['y', 2],
      ]),
    );
    assert.deepEqual(parts(r.get('a')), ['x-1', 'y-0', 'y-1']);
    assert.deepEqual(parts(r.get('b')), ['x-0']);
  });
});
