import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { JsonScan, KeySet, KeySetsBy, NESTED } from './json-scan.ts';

const NOT_HANDLED = 'not handled';

/** The flat object `text` read by `values` with the member names `names`, or NOT_HANDLED. */
function flat(text: string, keys: KeySet): unknown[] | typeof NOT_HANDLED {
  const scan = new JsonScan();
  if (!scan.begin(text) || !scan.values(keys) || !scan.end()) return NOT_HANDLED;
  return [...keys.values];
}

/** What `flat` must give: the members of JSON.parse(text) (NOT_HANDLED where JSON.parse throws). */
function expected(text: string, names: readonly string[]): unknown[] | typeof NOT_HANDLED | 'not an object' {
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    return NOT_HANDLED;
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return 'not an object';
  return names.map((n) => (Object.hasOwn(o, n) ? (o as Record<string, unknown>)[n] : undefined));
}

/** Reads `text` twice with one KeySet (member by member, then by the learned run) and checks both against JSON.parse. */
function assertFlat(text: string, names: readonly string[]): void {
  const keys = new KeySet(names);
  const want = expected(text, names);
  assert.deepStrictEqual(flat(text, keys), want, `first read of ${text}`);
  assert.deepStrictEqual(flat(text, keys), want, `second read of ${text}`);
}

describe('json-scan: flat objects equal JSON.parse', () => {
  test('compact, with whitespace between tokens, repeated members (last wins), members in any order', () => {
    assertFlat('{"a":1,"b":"x","c":true,"d":false,"e":null}', ['a', 'b', 'c', 'd', 'e']);
    assertFlat(' \t\n{ "a" : 1 ,\r\n "b":"x"\t}\n ', ['a', 'b']);
    assertFlat('{"a":1,"b":2,"a":"again"}', ['a', 'b']);
    assertFlat('{"b":2,"zz":"skipped","a":1}', ['a', 'b']);
    assertFlat('{}', ['a']);
    assertFlat('{"a":""}', ['a']);
  });

  test('a member read once as a number and once as a string: each object read by what it holds', () => {
    const keys = new KeySet(['p']);
    assert.deepStrictEqual(flat('{"p":1.5}', keys), [1.5]);
    assert.deepStrictEqual(flat('{"p":"1.5"}', keys), ['1.5']);
    assert.deepStrictEqual(flat('{"p":1.5}', keys), [1.5]);
    assert.deepStrictEqual(flat('{"p":null}', keys), [null]);
    assert.deepStrictEqual(flat('{"q":1}', keys), [undefined]);
  });

  test('names with regex metacharacters, non-ASCII and lone surrogates are matched exactly', () => {
    const names = ['a.b*', '(x)', 'é€', '\ud83d', '[^$]|'];
    const text = '{"a.b*":1,"(x)":"y","é€":2,"\ud83d":"s\udc00","[^$]|":3,"aXb*":4}';
    assertFlat(text, names);
    assertFlat('{"a.b*":1,"(x)":"y","é€":2,"\ud83d":"s","[^$]|":3,"aab*":4}', names);
  });

  test('numbers: integers, decimals, negatives, exponents, long digit runs and -0 are Number() of their text', () => {
    const texts = [
      '0',
      '-0',
      '-0.0',
      '7',
      '-12',
      '0.007',
      '9598.5',
      '-0.30000000000000004',
      '1616321732986',
      '123456789012345',
      '1234567890123456',
      '9007199254740993',
      '12345678901234567890123',
      '0.1234567890123456789',
      '1e3',
      '1E-7',
      '-2.5e+10',
      '5e-324',
      '2.2250738585072014e-308',
      '1.7976931348623157e308',
      '1e400',
      '-1e400',
    ];
    const keys = new KeySet(['n']);
    for (const t of texts) {
      for (let round = 0; round < 2; round++) {
        const got = flat(`{"n":${t}}`, keys);
        assert.ok(got !== NOT_HANDLED, t);
        assert.ok(Object.is(got[0], JSON.parse(t)), `${t}: ${String(got[0])}`);
        assert.ok(Object.is(got[0], Number(t)), t);
      }
    }
  });

  test('objects and arrays under names not read are skipped (validated); under a name read they are not handled', () => {
    assertFlat('{"a":1,"n":{"x":[1,{"y":null},[]],"z":"s","e":{}},"b":[true,false,[[["deep"]]]],"c":2}', ['a', 'c']);
    assert.equal(flat('{"a":{"x":1}}', new KeySet(['a'])), NOT_HANDLED);
    assert.equal(flat('{"a":[1]}', new KeySet(['a'])), NOT_HANDLED);
  });

  test('nesting deeper than 32 levels is not handled', () => {
    const nest = (d: number): string => `{"a":1,"n":${'['.repeat(d)}${']'.repeat(d)}}`;
    assertFlat(nest(30), ['a']);
    assert.equal(flat(nest(40), new KeySet(['a'])), NOT_HANDLED);
  });
});

describe('json-scan: learned runs', () => {
  test('a compact object is learned as one run; text with whitespace between tokens is read member by member', () => {
    const keys = new KeySet(['a', 'b']);
    assert.deepStrictEqual(flat('{"a": 1}', keys), [1, undefined]);
    assert.equal(keys.opening.length, 0);
    assert.deepStrictEqual(flat('{"a":1,"c":[],"b":2}', keys), [1, 2]); // an array under a name not read: no run
    assert.equal(keys.opening.length, 0);
    assert.deepStrictEqual(flat('{"a":1,"c":"x","b":2}', keys), [1, 2]);
    assert.deepStrictEqual(flat('{"a":3,"c":"y","b":4}', keys), [3, 4]);
    assert.equal(keys.opening.length, 1);
  });

  test('random edits of learned objects: what the scan reads equals JSON.parse, and invalid text is never read', () => {
    const base = [
      '{"trade_seq":1706,"trade_id":"137488100","timestamp":1616321732986,"price":0.007,"iv":78.44,"direction":"buy","amount":0.1}',
      '{"T":1744170142720,"s":"BTC-9APR25-80000-C","S":"Sell","v":"0.5","p":"2710","L":"","BT":true,"mIv":"0.4523","x":null}',
    ];
    const names = ['trade_id', 'timestamp', 'price', 'direction', 'amount', 's', 'S', 'v', 'p', 'BT', 'x'];
    const keys = new KeySet(names);
    const pieces = ['"', ',', ':', '{', '}', '[', ']', '-', '.', 'e', '0', '1', ' ', '\n', 'true', 'null', '"a"'];
    let seed = 7;
    const rand = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    for (let i = 0; i < 4000; i++) {
      const text = base[i % base.length] ?? '';
      const at = rand(text.length + 1);
      const piece = pieces[rand(pieces.length)] ?? '';
      const edits = [
        text.slice(0, at) + piece + text.slice(at),
        text.slice(0, at) + text.slice(at + 1),
        text.slice(0, at) + piece + text.slice(at + 1),
      ];
      for (const edited of [text, ...edits]) {
        const got = flat(edited, keys);
        const want = expected(edited, names);
        if (got !== NOT_HANDLED) assert.deepStrictEqual(got, want, edited);
        if (want === NOT_HANDLED) assert.equal(got, NOT_HANDLED, edited);
      }
    }
    assert.ok(keys.opening.length > 1);
  });
});

describe('json-scan: input it does not handle', () => {
  test('any backslash (escapes are not read), also in a member not read', () => {
    for (const text of ['{"a":"x\\"y"}', '{"a":1,"b":"\\u0041"}', '{"a\\u0041":1}', '{"a":1,"b":"\\\\"}']) {
      assert.equal(flat(text, new KeySet(['a'])), NOT_HANDLED, text);
      assert.doesNotThrow(() => JSON.parse(text));
    }
  });

  test('invalid JSON: numbers, literals, structure, control characters in strings, trailing text', () => {
    const invalid = [
      '{"a":01}',
      '{"a":1.}',
      '{"a":.5}',
      '{"a":-}',
      '{"a":+1}',
      '{"a":1e}',
      '{"a":0x10}',
      '{"a":NaN}',
      '{"a":Infinity}',
      '{"a":tru}',
      '{"a":nul}',
      '{"a":True}',
      "{'a':1}",
      '{a:1}',
      '{"a" 1}',
      '{"a":1,}',
      '{,"a":1}',
      '{"a":1 "b":2}',
      '{"a":1}}',
      '{"a":1}x',
      '{"a":[1,]}',
      '{"a":1,"b":[1 2]}',
      '{"a":1,"b":{"c"}}',
      '{"a":1,"b":{"c":1]}',
      '{"a":"x\ty"}',
      '{"a":"x\ny"}',
      '{"a":"x\u0001y"}',
      '{"a":1,"b":"\u001f"}',
      '{"a\u0000":1}',
      '{"a":1}\u0000',
      '\ufeff{"a":1}',
      '[{"a":1}]',
      '"a"',
      '',
      ' ',
    ];
    for (const text of invalid) {
      assert.equal(flat(text, new KeySet(['a'])), NOT_HANDLED, JSON.stringify(text));
    }
  });

  test('every truncation of a frame, before and after its run was learned', () => {
    const text = '{"T":1744170142720,"s":"BTC-9APR25-80000-C","S":"Sell","v":"0.5","p":"2710","BT":true,"seq":1001,"x":null}';
    const keys = new KeySet(['T', 's', 'S', 'v', 'p', 'BT']);
    for (let round = 0; round < 2; round++) {
      for (let n = 0; n < text.length; n++) assert.equal(flat(text.slice(0, n), keys), NOT_HANDLED, text.slice(0, n));
      assert.deepStrictEqual(flat(text, keys), [1744170142720, 'BTC-9APR25-80000-C', 'Sell', '0.5', '2710', true]);
    }
  });

  test('text of 256 KiB is read; text over 4 MiB is left to JSON.parse', () => {
    const keys = new KeySet(['a']);
    assert.deepStrictEqual(flat(`{"a":1,"pad":"${'x'.repeat(256 * 1024)}"}`, keys), [1]);
    assert.equal(flat(`{"a":1,"pad":"${'x'.repeat(4 * 1024 * 1024)}"}`, keys), NOT_HANDLED);
  });
});

describe('json-scan: objects holding objects and arrays', () => {
  const TOP = new KeySet(['topic', 'data']);
  const ITEM = new KeySet(['a', 'b']);

  /** topic and the items of `data` of a frame, or NOT_HANDLED. */
  function frame(text: string): { topic: unknown; items: unknown[][] } | typeof NOT_HANDLED {
    const scan = new JsonScan();
    let items: unknown[][] | null = null;
    if (!scan.begin(text)) return NOT_HANDLED;
    for (let k = scan.readObject(TOP); k !== -1; k = scan.readRest(TOP)) {
      if (k !== 1) return NOT_HANDLED;
      items = scan.objects(ITEM, (v) => [...v]);
      if (items === null) return NOT_HANDLED;
    }
    return scan.end() && TOP.values[1] === NESTED && items !== null ? { topic: TOP.values[0], items } : NOT_HANDLED;
  }

  test('members before and after the array, read again by learned runs', () => {
    for (let round = 0; round < 2; round++) {
      assert.deepStrictEqual(frame('{"id":7,"topic":"t","data":[{"a":1,"b":"x"},{"b":2,"a":null}],"type":"snapshot"}'), {
        topic: 't',
        items: [
          [1, 'x'],
          [null, 2],
        ],
      });
      assert.deepStrictEqual(frame('{"data":[],"topic":"u"}'), { topic: 'u', items: [] });
      assert.deepStrictEqual(frame('{ "topic" : "v" , "data" : [ { "a" : 1 } ] }'), { topic: 'v', items: [[1, undefined]] });
    }
  });

  test('a member read as an array and then repeated as a scalar is the scalar (NESTED replaced)', () => {
    assert.equal(frame('{"topic":"t","data":[{"a":1}],"data":5}'), NOT_HANDLED);
    assert.deepStrictEqual(frame('{"topic":"t","data":[{"a":1}],"data":[{"a":2}]}'), { topic: 't', items: [[2, undefined]] });
  });

  test('elements that are not objects of scalars, and broken arrays, are not handled', () => {
    for (const text of [
      '{"topic":"t","data":[1]}',
      '{"topic":"t","data":[{"a":1},[]]}',
      '{"topic":"t","data":[{"a":[1]}]}',
      '{"topic":"t","data":{"a":1}}',
      '{"topic":"t","data":[{"a":1},]}',
      '{"topic":"t","data":[{"a":1}}',
      '{"topic":"t","data":[}',
    ]) {
      assert.equal(frame(text), NOT_HANDLED, text);
    }
  });
});

describe('json-scan: an object holding an object (runs of both levels joined)', () => {
  const TOP = new KeySet(['method', 'params']);
  const PARAMS = new KeySet(['channel', 'data']);
  const ITEM = new KeySet(['a']);

  /** method, channel and the `a` of each item of params.data, or NOT_HANDLED. */
  function read(text: string): unknown[] | typeof NOT_HANDLED {
    const scan = new JsonScan();
    if (!scan.begin(text)) return NOT_HANDLED;
    let items: unknown[] | null = null;
    for (let k = scan.readObject(TOP); k !== -1; k = scan.readRest(TOP)) {
      if (k !== 1) return NOT_HANDLED;
      items = null;
      for (let p = scan.readObject(PARAMS); p !== -1; p = scan.readRest(PARAMS)) {
        if (p !== 1) return NOT_HANDLED;
        items = scan.objects(ITEM, (v) => v[0]);
        if (items === null) return NOT_HANDLED;
      }
    }
    if (!scan.end() || TOP.values[1] !== NESTED || PARAMS.values[1] !== NESTED || items === null) return NOT_HANDLED;
    return [TOP.values[0], PARAMS.values[0], ...items];
  }

  test('read alike before and after the runs were joined, and when the inner object changes', () => {
    const trades = '{"jsonrpc":"2.0","method":"subscription","params":{"channel":"trades.x","data":[{"a":1},{"a":2}]}}';
    const other = '{"jsonrpc":"2.0","method":"subscription","params":{"type":"x","channel":"c","data":[]},"id":1}';
    const closed = '{"jsonrpc":"2.0","method":"heartbeat","params":{"type":"test_request"}}';
    for (let round = 0; round < 4; round++) {
      assert.deepStrictEqual(read(trades), ['subscription', 'trades.x', 1, 2]);
      assert.deepStrictEqual(read(other), ['subscription', 'c']);
      assert.equal(read(closed), NOT_HANDLED); // no data
      assert.equal(read(trades.slice(0, 70)), NOT_HANDLED);
      assert.equal(read(trades.replace('"data"', '"x":1,"data"')).length, 4);
    }
    assert.ok(TOP.opening.some((r) => r.then !== undefined));
  });

  test('after a joined run, reading anything but the inner object fails the scan', () => {
    const text = '{"jsonrpc":"2.0","method":"subscription","params":{"channel":"trades.x","data":[{"a":1}]}}';
    for (let round = 0; round < 3; round++) read(text);
    const scan = new JsonScan();
    scan.begin(text);
    assert.equal(scan.readObject(TOP), 1);
    assert.equal(
      scan.objects(ITEM, (v) => v[0]),
      null,
    );
    assert.equal(scan.failed, true);
    scan.begin(text);
    assert.equal(scan.readObject(TOP), 1);
    assert.equal(scan.readRest(TOP), -1);
    assert.equal(scan.end(), false);
  });
});

describe('json-scan: KeySets by a discriminating value', () => {
  test('one KeySet per string value, learning the runs of its own objects; non-strings and values beyond 16 share one', () => {
    const by = new KeySetsBy(['a', 'b']);
    const option = by.get('trades.option');
    const perp = by.get('trades.perp');
    assert.notEqual(option, perp);
    assert.equal(by.get(`trades.${'option'}`), option, 'the same value (another string of the same text): the same KeySet');
    assert.deepStrictEqual(option.names, ['a', 'b']);
    // interleaved layouts: each KeySet learns only its own, so its first run tried is the right one
    for (let i = 0; i < 3; i++) {
      assert.deepStrictEqual(flat(`{"a":${i},"x":1,"b":"o"}`, option), [i, 'o']);
      assert.deepStrictEqual(flat(`{"a":${i},"b":"p"}`, perp), [i, 'p']);
    }
    assert.equal(option.opening.length, 1);
    assert.equal(perp.opening.length, 1);
    assert.notEqual(option.opening[0]?.re.source, perp.opening[0]?.re.source);
    const shared = by.get(undefined);
    assert.equal(by.get(7), shared);
    assert.ok(shared !== option && shared !== perp);
    for (let i = 2; i < 16; i++) assert.notEqual(by.get(`channel ${i}`), shared);
    assert.equal(by.get('channel 16'), shared, 'beyond 16 values: the shared KeySet');
    assert.equal(by.get('trades.perp'), perp, 'values kept before stay theirs');
  });
});

describe('json-scan: the order learned runs are tried in', () => {
  test('two alternating layouts keep their order (one tried in vain a pair, not one a read); a run matching twice in a row goes first', () => {
    const keys = new KeySet(['a', 'b']);
    const a = (i: number): string => `{"a":${i},"x":1,"b":2}`;
    const b = (i: number): string => `{"a":${i},"y":"z","b":2}`;
    for (let i = 0; i < 3; i++) {
      assert.deepStrictEqual(flat(a(i), keys), [i, 2]);
      assert.deepStrictEqual(flat(b(i), keys), [i, 2]);
    }
    assert.equal(keys.opening.length, 2);
    const first = keys.opening[0];
    for (let i = 0; i < 6; i++) {
      assert.deepStrictEqual(flat(i % 2 === 0 ? a(i) : b(i), keys), [i, 2]);
      assert.equal(keys.opening[0], first, `alternating: the order stays (read ${i})`);
    }
    const other = keys.opening[1];
    const [front, back] = first?.re.source.includes('"x"') === true ? [a, b] : [b, a];
    flat(front(7), keys);
    flat(back(8), keys);
    assert.equal(keys.opening[0], first, 'one match of the second run: not moved');
    flat(back(9), keys);
    assert.equal(keys.opening[0], other, 'its second match in a row: tried first');
  });

  test('objects holding objects of two alternating layouts: the joined runs are tried before the outer run alone', () => {
    const outer = new KeySet(['h', 'd']);
    const inner = new KeySet(['a']);
    const read = (text: string): unknown[] | typeof NOT_HANDLED => {
      const scan = new JsonScan();
      if (!scan.begin(text)) return NOT_HANDLED;
      for (let k = scan.readObject(outer); k !== -1; k = scan.readRest(outer)) if (k !== 1 || !scan.values(inner)) return NOT_HANDLED;
      return scan.end() ? [outer.values[0], ...inner.values] : NOT_HANDLED;
    };
    const text = (i: number): string => (i % 2 === 0 ? `{"h":${i},"d":{"a":1,"x":2}}` : `{"h":${i},"d":{"a":2,"y":"z"}}`);
    for (let i = 0; i < 4; i++) assert.deepStrictEqual(read(text(i)), [i, 1 + (i % 2)]);
    const first = outer.opening[0];
    for (let i = 4; i < 12; i++) {
      assert.deepStrictEqual(read(text(i)), [i, 1 + (i % 2)]);
      // the outer run alone must not get ahead of a joined run (else every read matches it and re-joins, in vain)
      assert.equal(outer.opening.at(-1)?.then, undefined, `read ${i}: the outer run alone is tried last`);
      assert.equal(outer.opening[0], first, `read ${i}: the order stays`);
    }
    assert.equal(outer.opening.filter((r) => r.then !== undefined).length, 2);
  });
});
