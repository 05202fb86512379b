import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { assignPartitions } from './assignment.ts';

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
