/**
 * The web explorer (/app) in a real headless Chromium (Debian's package, driven by puppeteer-core) against the
 * demo's roles (sandbox market -> connectors -> bus -> processors -> API, short snapshot interval): the page loads
 * without console errors, every panel draws a non-empty chart, the hvl line sits at the value /v2/gex/levels
 * returns for the same instant, the slider (keyboard) changes the instant and the levels, the URL holds the view,
 * a bad key shows the 401 message, the layout fits a phone. The level study reads a day of past snapshots seeded
 * before the tests (the demo itself has run for a minute): its panel shows the API's numbers for the last 7 days.
 * Screenshots of each panel go to .tmp/explorer-screenshots/ (EXPLORER_SCREENSHOTS overrides) for people to look at.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { loadConfig } from '#platform/settings.ts';
import { createRuntimeContext, type RuntimeContext } from '#app/runtime/context.ts';
import { startRoles } from '#app/cli/commands/roles.ts';
import { seedLevelHistory } from './level-history.ts';

const INTERVAL_MS = 3_000;
const STEP_MS = 30_000;
const PANELS = ['profile', 'by-strike', 'heatmap', 'market', 'tape', 'smile', 'term', 'level-study'] as const;
/** Panels drawn as tables (no canvas). */
const TABLES: readonly string[] = ['tape', 'level-study'];
const HALF_HOUR_MS = 1_800_000;
const HOUR_MS = 3_600_000;
const SHOTS = process.env['EXPLORER_SCREENSHOTS'] ?? join(process.cwd(), '.tmp', 'explorer-screenshots');

/** A data attribute as the API's number (absent = null). */
const num = (v: string | undefined): number | null => (v === undefined ? null : Number(v));

interface Levels {
  all_expiry: { hvl: number | null; call_resistance: number | null; put_support: number | null };
}

interface HoldCounts {
  touched: number;
  held: number;
  hold_rate: number | null;
}

interface Study {
  from: string;
  to: string;
  instants: number;
  missing: number;
  levels: Record<string, HoldCounts & { instants: number; broke: number; edge: number | null; placebo: HoldCounts }>;
  regimes: Record<string, { count: number; mean_rv: number | null }>;
}

/** The page's percentages: one decimal, "n/a" for null. */
const pct = (r: number | null): string => (r === null ? 'n/a' : `${(r * 100).toFixed(1)}%`);

/** WCAG contrast ratios of the body text and a panel's help and status lines against their backgrounds. */
const CONTRAST_SCRIPT = `(() => {
  const rgb = (c) => (c.match(/[\\d.]+/g) ?? []).slice(0, 3).map(Number);
  const lum = (c) => {
    const [r, g, b] = rgb(c).map((v) => (v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const ratio = (fg, bg) => {
    const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    return (a + 0.05) / (b + 0.05);
  };
  const panel = getComputedStyle(document.querySelector('.panel')).backgroundColor;
  const body = getComputedStyle(document.body);
  return {
    body: ratio(body.color, body.backgroundColor),
    help: ratio(getComputedStyle(document.querySelector('.panel .help')).color, panel),
    status: ratio(getComputedStyle(document.querySelector('.panel .status')).color, panel),
  };
})()`;

describe('web explorer in headless Chromium', () => {
  let dir: string;
  let ctx: RuntimeContext;
  let base: string;
  let key: string;
  let browser: Browser;
  let page: Page;
  const consoleErrors: string[] = [];

  const api = async <T>(path: string): Promise<{ status: number; data: T; meta: { computed_at?: string } }> => {
    const r = await fetch(`${base}${path}`, { headers: { 'x-api-key': key } });
    const body = (await r.json()) as { data: T; meta: { computed_at?: string } };
    return { status: r.status, data: body.data, meta: body.meta };
  };

  async function until(what: string, ok: () => Promise<boolean>, ms = 120_000): Promise<void> {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      if (await ok()) return;
      await sleep(500);
    }
    throw new Error(`${what}: not within ${ms} ms`);
  }

  const panelState = (p: Page, id: string): Promise<Record<string, string>> =>
    p.$eval(`#panel-${id}`, (el) => ({ ...(el as HTMLElement).dataset }) as Record<string, string>);

  /** Waits until no panel is loading and returns their states. */
  async function settled(p: Page): Promise<Record<string, string>> {
    await p.waitForFunction(
      () => [...document.querySelectorAll('.panel')].every((el) => (el as HTMLElement).dataset['state'] !== 'loading'),
      { timeout: 60_000 },
    );
    return p.$$eval('.panel', (els) =>
      Object.fromEntries(els.map((el) => [el.id.replace('panel-', ''), (el as HTMLElement).dataset['state'] ?? ''])),
    );
  }

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gex-explorer-e2e-'));
    const config = loadConfig({
      DATA_DIR: dir,
      PORT: '0',
      ADMIN_PORT: '0',
      HOST: '127.0.0.1',
      SYMBOLS: 'BTCUSDT',
      VENUES: 'deribit,okx',
      SNAPSHOT_INTERVAL_MS: String(INTERVAL_MS),
      SANDBOX: 'true',
    });
    ctx = await createRuntimeContext(config, { metrics: false });
    const { api: server } = await startRoles(ctx, new Set(['ingest', 'processors', 'query-api']), true);
    assert.ok(server !== null);
    await server.app.gex.repository.upsertUser({ userId: 'explorer', plan: 'enterprise', status: 'active', evaluation: false });
    key = (await server.app.gex.repository.createKey('explorer', 'gex')).key;
    await server.app.gex.accounts.refresh();
    base = server.url;
    const executablePath = process.env['CHROMIUM_PATH'];
    assert.ok(executablePath, 'CHROMIUM_PATH (set by tools/run-tests.mjs)');
    browser = await puppeteer.launch({
      executablePath,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
    await mkdir(SHOTS, { recursive: true });
    // Every panel's route has data (the first ticks are in) and a snapshot 60 s before the newest grid instant exists.
    await until(
      'levels with an hvl',
      async () => (await api<Levels>('/v2/gex/levels?symbol=BTCUSDT&positioning=std')).data?.all_expiry?.hvl != null,
    );
    await until(
      'tape',
      async () => ((await api<{ trades: unknown[] }>('/v2/tape/recent?symbol=BTCUSDT&limit=1')).data?.trades ?? []).length > 0,
    );
    await until('term structure', async () =>
      ((await api<{ expiries: { atm_iv: number | null }[] }>('/v2/options/iv/term-structure?symbol=BTCUSDT')).data?.expiries ?? []).some(
        (e) => e.atm_iv !== null,
      ),
    );
    // The level study's history: snapshots every 10 min over 24 h ending 5 h before the current half hour, so no
    // 4 h path after a seeded instant reaches the demo's live snapshots (another market, another spot).
    const end = Math.floor(Date.now() / HALF_HOUR_MS) * HALF_HOUR_MS - 5 * HOUR_MS;
    const seeded = performance.now();
    const n = await seedLevelHistory(ctx.store, end - 24 * HOUR_MS, end, 10 * 60_000);
    console.error(`[explorer] seeded ${n} past snapshots in ${Math.round(performance.now() - seeded)} ms`);
  });
  after(async () => {
    await browser?.close();
    await ctx?.shutdown();
    await rm(dir, { recursive: true, force: true });
  });

  test('replay view from the URL: every panel draws, hvl at the API value, slider by keyboard moves the instant and the levels', async () => {
    // The view replays the std model: its hvl is the crossing of dealers long calls, short puts, near spot while calls
    // carry the open interest above spot and puts below it (the sandbox chain's shape). The flow model's hvl was absent
    // from most demo snapshots for minutes on some mornings (customers buying OTM options on both sides leave dealers
    // short gamma everywhere), which made this wait fail; the page draws both models the same way.
    // The instant: a 30 s grid instant already stored, with an hvl, that has a snapshot 60 s before it (so two
    // slider steps back still resolve). On a busy machine the snapshot loop may run minutes behind the wall clock (late
    // ticks are caught up, not skipped), so the candidates are the grid instants at or before the newest stored
    // snapshot, newest first. Each round costs a few requests: the store that answers them also runs the loop waited on.
    const usable = async (t: number): Promise<'yes' | 'no' | 'no hvl' | 'too early'> => {
      // The page shows the std model: its hvl (not the flow model's) must exist at the instant, or no line is drawn.
      const now = await api<Levels>(`/v2/gex/levels?symbol=BTCUSDT&positioning=std&as_of=${new Date(t).toISOString()}`);
      // … and is the snapshot OF that instant (else the page, loaded before it is stored, shows the one before it).
      if (now.status !== 200 || now.meta.computed_at !== new Date(t).toISOString()) return 'no';
      if (now.data.all_expiry.hvl === null) return 'no hvl';
      // … a live snapshot (not the seeded history hours earlier) answers 60 s before it; else no older instant has one.
      const prev = await api<Levels>(`/v2/gex/levels?symbol=BTCUSDT&positioning=std&as_of=${new Date(t - 2 * STEP_MS).toISOString()}`);
      return prev.status === 200 && Date.parse(prev.meta.computed_at ?? '') > t - 3 * STEP_MS ? 'yes' : 'too early';
    };
    // Should the profile still have no crossing at some instants, the candidates are the grid instants of the last 10
    // minutes, not only the newest few; a stored snapshot without an hvl keeps none, so each such instant is asked about
    // once.
    let at = 0;
    const withoutHvl = new Set<number>();
    await until(
      'a stored grid instant with a std hvl and a live snapshot 60 s before it',
      async () => {
        const latest = await api<Levels>('/v2/gex/levels?symbol=BTCUSDT&positioning=std');
        const stored = Date.parse(latest.meta.computed_at ?? '');
        if (latest.status !== 200 || !Number.isFinite(stored)) return false;
        const newest = Math.floor(stored / STEP_MS) * STEP_MS;
        for (let t = newest; t > newest - 20 * STEP_MS; t -= STEP_MS) {
          if (withoutHvl.has(t)) continue;
          const verdict = await usable(t);
          if (verdict === 'too early') return false;
          if (verdict === 'no hvl') withoutHvl.add(t);
          if (verdict !== 'yes') continue;
          at = t;
          return true;
        }
        return false;
      },
      300_000,
    );
    console.error(`[explorer] replaying ${new Date(at).toISOString()}, ${Date.now() - at} ms before now`);
    page = await browser.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(String(e)));
    await page.setViewport({ width: 1280, height: 900 });
    const iso = new Date(at).toISOString();
    await page.goto(`${base}/app?symbol=BTCUSDT&model=std&at=${iso}`, { waitUntil: 'load' });
    assert.match(await page.$eval('#alert', (el) => el.textContent ?? ''), /Enter your API key/);
    await page.type('#key', key);
    await page.keyboard.press('Enter');
    // A replayed instant shows stored data only; a panel whose data is not in yet (the demo started a minute ago)
    // says so: reload (the key stays in sessionStorage) until every panel has data, at most three times.
    const allReady = Object.fromEntries(PANELS.map((p) => [p, 'ready']));
    let states = await settled(page);
    for (let i = 0; i < 3 && JSON.stringify(states) !== JSON.stringify(allReady); i++) {
      const notes = await page.$$eval('.panel', (els) =>
        els.map((el) => `${el.id}: ${(el as HTMLElement).dataset['state']} ${el.querySelector('.status')?.textContent ?? ''}`),
      );
      console.error(`[explorer] not every panel is ready yet, reloading: ${notes.join(' | ')}`);
      await sleep(5_000);
      await page.reload({ waitUntil: 'load' });
      states = await settled(page);
    }
    assert.deepEqual(states, allReady);
    assert.equal(await page.$eval('#instant', (el) => (el as HTMLElement).dataset['at']), iso);

    // Every chart has drawn: its canvases hold painted pixels (the tape: table rows).
    for (const id of PANELS.filter((p) => !TABLES.includes(p))) {
      const painted = await page.$eval(`#panel-${id}`, (el) =>
        [...el.querySelectorAll('canvas')].reduce((n, c) => {
          const d = c.getContext('2d')?.getImageData(0, 0, c.width, c.height).data ?? new Uint8ClampedArray();
          let k = 0;
          for (let i = 3; i < d.length; i += 4) if ((d[i] ?? 0) > 0) k++;
          return n + k;
        }, 0),
      );
      assert.ok(painted > 500, `${id}: ${painted} painted pixels`);
    }
    assert.ok((await page.$$eval('#panel-tape tbody tr', (r) => r.length)) > 0);

    // hvl: the value the API returns for the same instant, drawn inside the plot.
    const levels = await api<Levels>(`/v2/gex/levels?symbol=BTCUSDT&positioning=std&as_of=${iso}`);
    await page
      .waitForFunction(() => (document.getElementById('panel-profile') as HTMLElement).dataset['hvlX'] !== undefined, { timeout: 10_000 })
      .catch(async (e: unknown) => {
        throw new Error(
          `no hvl line drawn (API hvl ${levels.data.all_expiry.hvl}); profile panel: ${JSON.stringify(await panelState(page, 'profile'))}`,
          { cause: e },
        );
      });
    const shown = await panelState(page, 'profile');
    assert.equal(shown['snapshotAt'], levels.meta.computed_at);
    assert.equal(num(shown['hvl']), levels.data.all_expiry.hvl);
    assert.ok(levels.data.all_expiry.hvl !== null, 'the demo snapshot has an hvl');
    assert.equal(num(shown['callResistance']), levels.data.all_expiry.call_resistance);
    assert.equal(num(shown['putSupport']), levels.data.all_expiry.put_support);
    const width = await page.$eval('#panel-profile .chart', (el) => el.clientWidth);
    assert.ok(Number(shown['hvlX']) > 0 && Number(shown['hvlX']) < width, `hvl line drawn at x ${shown['hvlX']} in 0..${width}`);
    for (const id of PANELS.filter((p) => p !== 'level-study'))
      await (await page.$(`#panel-${id}`))?.screenshot({ path: join(SHOTS, `${id}.png`) });

    // Keyboard: Tab reaches the slider; two ArrowLeft presses step as_of back 60 s; levels follow the API.
    await page.focus('#key');
    let onSlider = false;
    for (let i = 0; i < 40 && !onSlider; i++) {
      await page.keyboard.press('Tab');
      onSlider = await page.evaluate(() => document.activeElement?.id === 'slider');
    }
    assert.ok(onSlider, 'the slider is reachable with Tab');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    const earlier = new Date(at - 2 * STEP_MS).toISOString();
    await page.waitForFunction(
      (want) => (document.getElementById('instant') as HTMLElement).dataset['at'] === want,
      { timeout: 10_000 },
      earlier,
    );
    await page.waitForFunction(
      (prev) => (document.getElementById('panel-profile') as HTMLElement).dataset['snapshotAt'] !== prev,
      { timeout: 30_000 },
      shown['snapshotAt'],
    );
    await settled(page);
    const back = await api<Levels>(`/v2/gex/levels?symbol=BTCUSDT&positioning=std&as_of=${earlier}`);
    const moved = await panelState(page, 'profile');
    assert.equal(moved['snapshotAt'], back.meta.computed_at);
    assert.ok(Date.parse(moved['snapshotAt'] ?? '') <= Date.parse(earlier));
    assert.equal(num(moved['hvl']), back.data.all_expiry.hvl);
    assert.ok(page.url().includes(`at=${earlier}`), `the URL holds the instant: ${page.url()}`);

    // Live: the instant reads "live" and the URL drops `at`.
    await page.click('#live');
    await page.waitForFunction(() => (document.getElementById('instant') as HTMLElement).dataset['at'] === 'live', { timeout: 10_000 });
    await settled(page);
    assert.ok(!page.url().includes('at='));
    assert.deepEqual(consoleErrors, []);
  });

  test('level study: last 7 days, three level rows and four regime rows with the API numbers', async () => {
    await page.select('#panel-level-study-days', '7');
    await page.waitForFunction(
      () => {
        const el = document.getElementById('panel-level-study') as HTMLElement;
        return el.dataset['state'] !== 'loading' && el.dataset['days'] === '7';
      },
      { timeout: 30_000 },
    );
    const shown = await panelState(page, 'level-study');
    const status = await page.$eval('#panel-level-study .status', (el) => el.textContent ?? '');
    assert.equal(shown['state'], 'ready', status);
    // The window is part of the shareable URL, and a page opened from it starts there.
    assert.equal(new URL(page.url()).searchParams.get('study_days'), '7');
    assert.equal(Date.parse(shown['to'] ?? '') - Date.parse(shown['from'] ?? ''), 7 * 24 * HOUR_MS);
    // The same window as the page (not `days=7` again: a half-hour boundary may pass in between).
    const study = await api<Study>(`/v2/gex/level-study?symbol=BTCUSDT&positioning=flow&from=${shown['from']}&to=${shown['to']}`);
    assert.equal(study.status, 200);
    const d = study.data;
    assert.deepEqual([d.from, d.to, d.instants, d.missing], [shown['from'], shown['to'], num(shown['instants']), num(shown['missing'])]);
    // Non-trivial: the seeded day is sampled and its waves reach some levels.
    assert.ok(d.instants - d.missing >= 40, `${d.instants - d.missing} sampled instants`);
    assert.ok(Object.values(d.levels).every((l) => l.instants > 0));
    assert.ok(Object.values(d.levels).some((l) => l.touched > 0 && l.hold_rate !== null));

    const cells = (sel: string, key: string) =>
      page.$$eval(
        sel,
        (rows, k) =>
          rows.map((r) => ({
            key: (r as HTMLElement).dataset[k] ?? '',
            cells: Object.fromEntries([...r.querySelectorAll('td')].map((td) => [td.dataset['field'] ?? '', td.textContent ?? ''])),
          })),
        key,
      );
    const count = (text: string | undefined): number => Number((text ?? '').replaceAll(',', ''));
    const levels = await cells('#panel-level-study tr[data-level]', 'level');
    assert.deepEqual(
      levels.map((r) => r.key),
      ['hvl', 'call_resistance', 'put_support'],
    );
    for (const { key: kind, cells: c } of levels) {
      const l = d.levels[kind];
      assert.ok(l !== undefined, kind);
      assert.equal(c['hold_rate'], pct(l.hold_rate), `${kind} hold rate`);
      assert.match(c['hold_rate'] ?? '', /^(\d+\.\d%|n\/a)$/);
      assert.equal(c['placebo_hold_rate'], pct(l.placebo.hold_rate), `${kind} placebo hold rate`);
      assert.equal(c['edge'], l.edge === null ? 'n/a' : `${l.edge < 0 ? '−' : '+'}${Math.abs(l.edge * 100).toFixed(1)} pp`);
      const counts = [l.instants, l.touched, l.held, l.broke, l.placebo.touched, l.placebo.held];
      const fields = ['instants', 'touched', 'held', 'broke', 'placebo_touched', 'placebo_held'];
      assert.deepEqual(
        fields.map((f) => count(c[f])),
        counts,
        `${kind} counts`,
      );
    }
    const regimes = await cells('#panel-level-study tr[data-regime]', 'regime');
    assert.deepEqual(
      regimes.map((r) => r.key),
      ['net_gex_positive', 'net_gex_negative', 'spot_above_hvl', 'spot_below_hvl'],
    );
    for (const { key: kind, cells: c } of regimes) {
      const r = d.regimes[kind];
      assert.ok(r !== undefined, kind);
      assert.deepEqual([count(c['count']), c['mean_rv']], [r.count, pct(r.mean_rv)], kind);
    }
    assert.ok(regimes.some((r) => count(r.cells['count']) > 0));
    assert.match(status, /^Horizon 4 h, step 30 min, last 7 days .*; [\d,]+ of [\d,]+ instants missing\. .*edge near zero is expected/);
    await (await page.$('#panel-level-study'))?.screenshot({ path: join(SHOTS, 'level-study.png') });
    // A shared link with the window opens on it (the key is kept in the tab).
    await page.goto(`${base}/app?symbol=BTCUSDT&model=flow&study_days=90`, { waitUntil: 'load' });
    await page.waitForFunction(() => document.getElementById('panel-level-study')?.dataset['days'] === '90', { timeout: 30_000 });
    assert.equal(await page.$eval('#panel-level-study-days', (el) => (el as HTMLSelectElement).value), '90');
    assert.deepEqual(consoleErrors, []);
  });

  test('readable contrast (text ≥ 7:1 on its panel) and a phone-width layout without horizontal scrolling', async () => {
    // A string, not a function: tsx would wrap named helpers in __name(), which the page does not define.
    const ratios = (await page.evaluate(CONTRAST_SCRIPT)) as Record<string, number>;
    for (const [k, v] of Object.entries(ratios)) assert.ok(v >= 7, `${k} contrast ${v.toFixed(2)}`);
    await page.setViewport({ width: 390, height: 844, isMobile: true });
    await settled(page);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `horizontal overflow ${overflow}px at 390 px`);
    assert.equal(await panelState(page, 'profile').then((d) => d['state']), 'ready');
    await page.screenshot({ path: join(SHOTS, 'phone.png'), fullPage: true });
  });

  test('a bad key shows the 401 message with what to do', async () => {
    const context = await browser.createBrowserContext();
    const p = await context.newPage();
    await p.goto(`${base}/app`, { waitUntil: 'load' });
    await p.type('#key', `gex_live_${'x'.repeat(32)}`);
    await p.keyboard.press('Enter');
    await p.waitForFunction(() => /^401 Unauthorized/.test(document.getElementById('alert')?.textContent ?? ''), { timeout: 30_000 });
    const text = await p.$eval('#alert', (el) => el.textContent ?? '');
    assert.match(text, /the API key was refused\. Check that it is typed exactly as issued/);
    assert.equal(await p.$eval('#alert', (el) => (el as HTMLElement).hidden), false);
    assert.equal((await panelState(p, 'profile'))['state'], 'error');
    await p.screenshot({ path: join(SHOTS, 'bad-key.png') });
    await context.close();
  });
});
