import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { migrate } from '#clickhouse/migrate.ts';
import type { Store } from '#clickhouse/store.ts';
import { openTempStore } from '#clickhouse/testing/temp-store.ts';
import { ReferenceFetcher, sourcesSchema, startReferenceFetcher, type FetchOutcome, type FetchSource } from './fetcher.ts';
import { nextRunAt } from './schedule.ts';
import { zip } from './testing/zip-writer.ts';

const fx = (name: string): string => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

let t: Awaited<ReturnType<typeof openTempStore>>;
let store: Store;
let server: Server;
let base: string;
const requests: { url: string; inm: string | undefined; ua: string | undefined }[] = [];
const bodies = new Map<string, { body: string | Buffer; etag: string; status?: number }>();

before(async () => {
  t = await openTempStore();
  store = t.store;
  await migrate(store);
  server = createServer((req, res) => {
    requests.push({ url: req.url ?? '', inm: req.headers['if-none-match'], ua: req.headers['user-agent'] });
    const f = bodies.get(req.url ?? '');
    if (f === undefined) return void res.writeHead(404).end('no');
    if (f.status !== undefined) return void res.writeHead(f.status).end('down');
    if (req.headers['if-none-match'] === f.etag) return void res.writeHead(304).end();
    res.writeHead(200, { etag: f.etag, 'content-type': 'text/plain' }).end(f.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await t.dispose();
});

const count = async (sql: string) => (await store.query<{ n: string }>(sql))[0]?.n;

test('schedule: next Friday 21:00 UTC for the CFTC; next 23:00 UTC daily', () => {
  const wed = Date.parse('2026-03-18T10:00:00Z');
  assert.equal(new Date(nextRunAt({ every: 'week', weekday: 5, hour_utc: 21 }, wed)).toISOString(), '2026-03-20T21:00:00.000Z');
  const fri = Date.parse('2026-03-20T21:00:00Z');
  assert.equal(new Date(nextRunAt({ every: 'week', weekday: 5, hour_utc: 21 }, fri)).toISOString(), '2026-03-27T21:00:00.000Z');
  assert.equal(new Date(nextRunAt({ every: 'day', hour_utc: 23 }, wed)).toISOString(), '2026-03-18T23:00:00.000Z');
  assert.equal(new Date(nextRunAt({ every: 'day', hour_utc: 9 }, wed)).toISOString(), '2026-03-19T09:00:00.000Z');
});

test('fetcher over HTTP: loads, 304 / same bytes not reloaded, changed file reloaded, HTTP errors and bad rows reported', async () => {
  bodies.set('/cot.txt', { body: fx('cftc_legacy_futures_only_2025_slice.txt'), etag: '"v1"' });
  const logged: FetchOutcome[] = [];
  const f = new ReferenceFetcher({ store, log: (o) => logged.push(o) });
  const src: FetchSource = {
    name: 'legacy',
    kind: 'cot',
    urls: [`${base}/cot.txt`],
    every: 'week',
    weekday: 5,
    hour_utc: 21,
    variant: 'futures_only',
    headers: { 'user-agent': 'gex-test admin@example.com' },
  };
  const first = await f.runOnce(src);
  assert.equal(first.status, 'loaded');
  assert.equal(first.reports[0]?.written, 40);
  assert.equal(await count('SELECT count() AS n FROM cot_positions FINAL'), '40');
  assert.equal(requests.at(-1)?.ua, 'gex-test admin@example.com');
  assert.equal((await f.runOnce(src)).status, 'unchanged');
  assert.equal(requests.at(-1)?.inm, '"v1"', 'conditional request with the ETag');
  bodies.set('/cot.txt', { body: fx('cftc_legacy_futures_only_2025_slice.txt'), etag: '"v2"' });
  assert.equal((await f.runOnce(src)).status, 'unchanged', 'new ETag, same bytes');
  const lines = fx('cftc_legacy_futures_only_2025_slice.txt').split('\n');
  bodies.set('/cot.txt', { body: [lines[0], lines[1]].join('\n'), etag: '"v3"' });
  assert.equal((await f.runOnce(src)).status, 'loaded');
  bodies.set('/cot.txt', { body: 'x', etag: '"v4"', status: 503 });
  const down = await f.runOnce(src);
  assert.deepEqual([down.status, down.error], ['failed', `HTTP 503 from ${base}/cot.txt`]);
  bodies.set('/cot.txt', { body: `${lines[0]}\n"BROKEN",1\n`, etag: '"v5"' });
  const bad = await f.runOnce(src);
  assert.equal(bad.status, 'failed');
  assert.match(bad.reports[0]?.errors[0]?.message ?? '', /expected 129 fields/);
  assert.equal(await count('SELECT count() AS n FROM cot_positions FINAL'), '40', 'nothing of the bad file written');
  assert.deepEqual(
    logged.map((o) => o.status),
    ['loaded', 'unchanged', 'unchanged', 'loaded', 'failed', 'failed'],
  );
  const refused = await new ReferenceFetcher({ store }).runOnce({ ...src, urls: ['http://127.0.0.1:1/nothing'] });
  assert.equal(refused.status, 'failed');
});

test("fetcher: the CFTC's official forms, a headerless current-week file and a yearly zip, load like the headed text", async () => {
  const tff = readFileSync(new URL('./fixtures/cftc_tff_futures_only_2026_slice.txt', import.meta.url));
  bodies.set('/dea/newcot/FinFutWk.txt', { body: fx('headerless_cftc_tff_futures_only_2026_slice.txt'), etag: '"w1"' });
  bodies.set('/files/dea/history/fut_fin_txt_2026.zip', { body: zip([{ name: 'FinFutYY.txt', data: tff }]), etag: '"z1"' });
  bodies.set('/files/dea/history/broken_2026.zip', {
    body: zip([
      { name: 'a.txt', data: tff },
      { name: 'b.txt', data: tff },
    ]),
    etag: '"z2"',
  });
  const f = new ReferenceFetcher({ store });
  const weekly = sourcesSchema.parse([
    {
      name: 'tff-week',
      kind: 'cot',
      urls: [`${base}/dea/newcot/FinFutWk.txt`],
      every: 'week',
      weekday: 5,
      hour_utc: 21,
      variant: 'futures_only',
      report: 'tff',
    },
  ])[0] as FetchSource;
  const w = await f.runOnce(weekly);
  assert.deepEqual([w.status, w.reports[0]?.written], ['loaded', 118]);
  const yearly: FetchSource = { ...weekly, name: 'tff-year', urls: [`${base}/files/dea/history/fut_fin_txt_2026.zip`] };
  const y = await f.runOnce(yearly);
  assert.deepEqual(
    [y.status, y.reports[0]?.file, y.reports[0]?.written],
    ['loaded', `${base}/files/dea/history/fut_fin_txt_2026.zip:FinFutYY.txt`, 118],
  );
  assert.equal(await count("SELECT count() AS n FROM cot_positions FINAL WHERE report = 'tff'"), '118', 'the same 118 market-weeks');
  assert.equal((await f.runOnce(yearly)).status, 'unchanged', 'same zip bytes');
  const broken = await f.runOnce({ ...yearly, urls: [`${base}/files/dea/history/broken_2026.zip`] });
  assert.equal(broken.status, 'failed');
  assert.match(broken.reports[0]?.errors[0]?.message ?? '', /holds 2 files/);
});

test('started role: every source once at start (13F: primary document then table), stop() waits', async () => {
  bodies.set('/p.xml', { body: fx('sec_13f_synthetic_gamma_2026q1_primary.xml'), etag: '"p"' });
  bodies.set('/t.xml', { body: fx('sec_13f_synthetic_gamma_2026q1_infotable.xml'), etag: '"t"' });
  const sources = sourcesSchema.parse([
    { name: '13f-gamma', kind: '13f', urls: [`${base}/p.xml`, `${base}/t.xml`], every: 'day', hour_utc: 12 },
  ]);
  const done: FetchOutcome[] = [];
  const role = startReferenceFetcher({ store, sources, log: (o) => done.push(o) });
  for (let i = 0; i < 100 && done.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
  await role.stop();
  assert.equal(done[0]?.status, 'loaded');
  assert.equal(await count("SELECT count() AS n FROM filings_13f FINAL WHERE filer_cik = '0000000103'"), '1');
  assert.throws(() => sourcesSchema.parse([{ name: 'x', kind: 'etf', urls: ['not a url'], every: 'day', hour_utc: 1 }]));
  const example = sourcesSchema.parse(
    JSON.parse(readFileSync(new URL('../../ops/reference-sources.example.json', import.meta.url), 'utf8')),
  );
  assert.deepEqual(
    example.filter((s) => s.kind === 'cot').map((s) => new URL(s.urls[0] ?? '').pathname.split('/').pop()),
    ['FinFutWk.txt', 'FinComWk.txt', 'deafut.txt', 'f_disagg.txt', 'fut_fin_txt_2026.zip', 'deacot2026.zip'],
  );
});
