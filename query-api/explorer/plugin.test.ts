import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '#clickhouse/store.ts';
import { migratedStore, testApp } from '../testing/harness.ts';
import type { ApiInstance } from '../types.ts';

describe('/app: the web explorer is served from source, without a key, outside the /v2 contract', () => {
  let t: { store: Store; dispose(): Promise<void> };
  let app: ApiInstance;
  before(async () => {
    t = await migratedStore();
    app = await testApp(t.store);
  });
  after(async () => {
    await app.close();
    await t.dispose();
  });

  test('the page, its script and stylesheet answer 200 with their types; no key needed; a CSP that allows only this origin', async () => {
    for (const url of ['/app', '/app/']) {
      const r = await app.inject({ url });
      assert.equal(r.statusCode, 200, url);
      assert.match(String(r.headers['content-type']), /^text\/html/);
      assert.match(r.body, /<script type="module" src="\/app\/app\.js"><\/script>/);
      assert.match(r.body, /<input id="key" name="key" type="password"/);
      assert.match(String(r.headers['content-security-policy']), /default-src 'self'/);
    }
    const js = await app.inject({ url: '/app/app.js' });
    assert.equal(js.statusCode, 200);
    assert.match(String(js.headers['content-type']), /^application\/javascript/);
    // The bundle holds uPlot and the page's own code (routes it calls), and imports nothing from elsewhere.
    assert.ok(js.body.length > 40_000, `bundle ${js.body.length} bytes`);
    for (const path of [
      '/v2/gex/levels?',
      '/v2/gex/strike-expiry-heatmap?',
      '/v2/market/bundle?',
      '/v2/options/iv/smile?',
      '/v2/options/iv/term-structure?',
      '/v2/tape/recent?',
    ])
      assert.ok(js.body.includes(path), path);
    assert.doesNotMatch(js.body, /\bimport\s*["'(]|from\s*["']http/);
    const css = await app.inject({ url: '/app/app.css' });
    assert.equal(css.statusCode, 200);
    assert.match(String(css.headers['content-type']), /^text\/css/);
    assert.match(css.body, /\.uplot/);
    assert.match(css.body, /--bg:/);
  });

  test('hidden from OpenAPI and /v2/endpoints (not part of the /v2 contract)', async () => {
    const doc = JSON.parse((await app.inject({ url: '/v2/openapi.json' })).body) as { paths: Record<string, unknown> };
    assert.equal(
      Object.keys(doc.paths).some((p) => p.startsWith('/app')),
      false,
    );
  });
});
