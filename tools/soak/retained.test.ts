import { test } from 'node:test';
import assert from 'node:assert/strict';
import { retainedSites, type ProfileNode, type SamplingProfile } from './retained.ts';

const node = (id: number, functionName: string, url: string, children: ProfileNode[] = []): ProfileNode => ({
  id,
  callFrame: { functionName, url, lineNumber: id },
  children,
});

test('retained sites: bytes per project stack, first and second half of the window, largest first', () => {
  // (root) → cache.ts:get (2) → render (3) ; (root) → node_modules lib (4) → sink.ts:admit (5); (root) → node:internal (6)
  const head = node(1, '(root)', '', [
    node(2, 'get', 'file:///app/cache.ts', [node(3, 'render', 'file:///app/view.ts')]),
    node(4, 'inner', 'file:///app/node_modules/lib/index.js', [node(5, 'admit', 'file:///app/sink.ts')]),
    node(6, 'tick', 'node:internal/timers'),
  ]);
  const profile: SamplingProfile = {
    head,
    samples: [
      { nodeId: 3, size: 1000, ordinal: 10 }, // early (ordinals 10…50, middle 30)
      { nodeId: 3, size: 3000, ordinal: 40 }, // late
      { nodeId: 5, size: 500, ordinal: 11 }, // early
      { nodeId: 5, size: 500, ordinal: 50 }, // late
      { nodeId: 6, size: 700, ordinal: 20 }, // early, no project frame
    ],
  };
  assert.deepEqual(retainedSites(profile, '/app/'), [
    { site: 'get cache.ts:3 < render view.ts:4', earlyBytes: 1000, lateBytes: 3000 },
    { site: 'admit sink.ts:6', earlyBytes: 500, lateBytes: 500 },
    { site: '(outside the project)', earlyBytes: 700, lateBytes: 0 },
  ]);
  assert.deepEqual(retainedSites(profile, '/app/', 1, 1), [{ site: 'render view.ts:4', earlyBytes: 1000, lateBytes: 3000 }]);
});

test('retained sites: an empty profile has no sites', () => {
  assert.deepEqual(retainedSites({ head: node(1, '(root)', ''), samples: [] }, '/app/'), []);
  const lineZero: SamplingProfile = {
    head: node(1, '(root)', '', [{ id: 2, callFrame: { functionName: '', url: 'file:///app/a.ts', lineNumber: 0 }, children: [] }]),
    samples: [{ nodeId: 2, size: 8, ordinal: 1 }],
  };
  assert.deepEqual(
    retainedSites(lineZero, '/app/'),
    [{ site: '(anonymous) a.ts', earlyBytes: 0, lateBytes: 8 }],
    'no line for line 0; one sample is in the second half',
  );
});
