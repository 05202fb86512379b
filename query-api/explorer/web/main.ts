/**
 * The explorer page (browser entry, bundled by query-api/explorer/bundle.ts): controls ↔ URL state, one
 * refresh per change that loads every panel in parallel from the public /v2 API, live refresh every 30 s,
 * and the point-in-time replay (slider + play) that steps `as_of` by 30 s over the last 24 hours.
 */
import 'uplot/dist/uPlot.min.css';
import './style.css';
import type { LevelsData } from '#processors/analytics/levels.ts';
import { ApiError, getV2, storedKey, storeKey } from './api.ts';
import { PanelView } from './panel.ts';
import { BUNDLE_QUERY, renderMarket, type BundleData } from './panels/market-panel.ts';
import { renderHeatmap, type HeatmapData } from './panels/heatmap-panel.ts';
import { renderSmile, renderTerm, type SmileData, type TermData } from './panels/iv-panels.ts';
import { LEVELS_INCLUDE, renderByStrike, renderProfile } from './panels/levels-panels.ts';
import { levelStudyPath, mountDaysSelector, renderLevelStudy, type LevelStudyData } from './panels/level-study-panel.ts';
import { renderTape, TAPE_LIMIT, type TapeTrade } from './panels/tape-panel.ts';
import { formatState, gexParams, indexOf, instantAt, MODELS, parseState, SYMBOLS, timeline, VENUES, type ViewState } from './state.ts';

const LIVE_REFRESH_MS = 30_000;
/** Replay speed: one 30 s step per 2 s (two requests per step, within a 60/min plan). */
const PLAY_STEP_MS = 2_000;

const $ = <T extends HTMLElement>(id: string): T => {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`#${id} missing`);
  return el as T;
};

const alertBox = $<HTMLDivElement>('alert');
const keyForm = $<HTMLFormElement>('key-form');
const keyInput = $<HTMLInputElement>('key');
const symbolSel = $<HTMLSelectElement>('symbol');
const modelSel = $<HTMLSelectElement>('model');
const venuesBox = $<HTMLFieldSetElement>('venues');
const slider = $<HTMLInputElement>('slider');
const instantOut = $<HTMLOutputElement>('instant');
const playBtn = $<HTMLButtonElement>('play');
const liveBtn = $<HTMLButtonElement>('live');
const main = $<HTMLElement>('panels');

const panels = {
  profile: new PanelView(
    main,
    'profile',
    'GEX profile',
    'Net dealer gamma exposure re-priced at hypothetical spot (USD per 1% move); lines: spot, hvl (zero gamma), call resistance, put support; 0DTE dashed.',
  ),
  byStrike: new PanelView(
    main,
    'by-strike',
    'GEX by strike',
    'Call and put gamma exposure per strike over every open expiry (USD per 1% move).',
  ),
  heatmap: new PanelView(main, 'heatmap', 'Strike × expiry heatmap', 'Net GEX per expiry and strike; green positive, red negative.'),
  market: new PanelView(main, 'market', 'Market', 'Perp + spot candles (5 min, 24 h) with open interest, funding and perp CVD.'),
  tape: new PanelView(main, 'tape', 'Recent tape', 'The latest option trades across venues.'),
  smile: new PanelView(main, 'smile', 'Volatility smile', 'Mark IV against log-moneyness, nearest four expiries.'),
  term: new PanelView(main, 'term', 'ATM term structure', 'ATM implied volatility per expiry and at constant maturities.'),
  study: new PanelView(
    main,
    'level-study',
    'Level study',
    'Did price respect the levels? From stored snapshots every 30 min: how often spot, once it touched hvl, call resistance or put support within 4 h, ended on the side it came from, against a placebo level mirrored on the other side of spot; and realized volatility per gamma regime.',
  ),
};

let state: ViewState = parseState(location.search);
let line = timeline(Date.now());
let controller: AbortController | null = null;
let bundle: { symbol: string; data: BundleData } | null = null;
let playing: ReturnType<typeof setInterval> | null = null;
let studyController: AbortController | null = null;

function showAlert(message: string | null): void {
  alertBox.hidden = message === null;
  alertBox.textContent = message ?? '';
}

function fillControls(): void {
  symbolSel.replaceChildren(...SYMBOLS.map((s) => new Option(s, s, false, s === state.symbol)));
  modelSel.value = state.model;
  if (venuesBox.querySelectorAll('input').length === 0) {
    for (const v of VENUES) {
      const label = document.createElement('label');
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.value = v;
      label.append(box, ` ${v}`);
      venuesBox.append(label);
    }
  }
  for (const box of venuesBox.querySelectorAll<HTMLInputElement>('input')) box.checked = state.venues.includes(box.value);
  line = timeline(Date.now());
  slider.max = String(line.count - 1);
  slider.value = String(state.at === null ? line.count - 1 : indexOf(line, state.at));
  showInstant();
}

function showInstant(): void {
  instantOut.value = state.at === null ? 'live' : `${new Date(state.at).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
  instantOut.dataset['at'] = state.at === null ? 'live' : new Date(state.at).toISOString();
}

function setState(next: Partial<ViewState>, scope: 'all' | 'levels' = 'all'): void {
  state = { ...state, ...next };
  history.replaceState(null, '', `${location.pathname}${formatState(state)}`);
  fillControls();
  void refresh(scope);
}

/** Run one panel's load; API refusals (401/403/429) also go to the banner, since they concern every panel. */
async function load(view: PanelView, work: () => Promise<void>): Promise<void> {
  view.set('loading');
  try {
    await work();
  } catch (e) {
    if (e instanceof DOMException && e.name === 'AbortError') return;
    const message = e instanceof Error ? e.message : String(e);
    view.set('error', message);
    if (e instanceof ApiError && [0, 401, 403, 429].includes(e.failure.status)) {
      showAlert(message);
      if (e.failure.status === 429) stopPlay();
    }
    if (!(e instanceof ApiError)) console.error(e);
  }
}

/** The level study: its own request (the window selector reloads it alone); the replay instant does not move it. */
function loadStudy(): Promise<void> {
  studyController?.abort();
  const ctl = new AbortController();
  studyController = ctl;
  const s = state;
  return load(panels.study, async () =>
    renderLevelStudy(panels.study, (await getV2<LevelStudyData>(levelStudyPath(s), ctl.signal)).data, s.studyDays),
  );
}

async function refresh(scope: 'all' | 'levels'): Promise<void> {
  if (storedKey() === null) {
    showAlert('Enter your API key above: the explorer reads the public /v2 API with it (kept in this tab only).');
    keyInput.focus();
    return;
  }
  controller?.abort();
  const ctl = new AbortController();
  controller = ctl;
  const signal = ctl.signal;
  const s = state;
  const q = gexParams(s).toString();
  const jobs: Promise<void>[] = [
    load(panels.profile, async () => {
      panels.byStrike.set('loading');
      const r = await getV2<LevelsData>(`/v2/gex/levels?${q}&include=${LEVELS_INCLUDE}`, signal).catch((e: unknown) => {
        panels.byStrike.set('error', e instanceof Error ? e.message : String(e));
        throw e;
      });
      const spot = r.meta.spot_price ?? r.data.profile?.spot[100] ?? 0;
      renderProfile(panels.profile, r.data, spot, r.meta.computed_at ?? '');
      renderByStrike(panels.byStrike, r.data, spot);
    }),
    load(panels.heatmap, async () => {
      const r = await getV2<HeatmapData>(`/v2/gex/strike-expiry-heatmap?${q}`, signal);
      renderHeatmap(panels.heatmap, r.data, r.meta.spot_price ?? 0);
    }),
  ];
  if (scope === 'all') {
    const iv = new URLSearchParams({ symbol: s.symbol });
    if (s.venues.length > 0) iv.set('exchanges', s.venues.join(','));
    if (s.at !== null) iv.set('as_of', new Date(s.at).toISOString());
    const tape = new URLSearchParams({ symbol: s.symbol, limit: String(TAPE_LIMIT) });
    if (s.at !== null) {
      tape.set('order', 'desc');
      tape.set('to', new Date(s.at).toISOString());
    }
    if (s.venues.length > 0 && s.at !== null) tape.set('venues', s.venues.join(','));
    jobs.push(
      load(panels.market, async () => {
        if (bundle?.symbol !== s.symbol || s.at === null)
          bundle = {
            symbol: s.symbol,
            data: (await getV2<BundleData>(`/v2/market/bundle?symbol=${s.symbol}&${BUNDLE_QUERY}`, signal)).data,
          };
        renderMarket(panels.market, bundle.data, s.at);
      }),
      load(panels.tape, async () => {
        const path = s.at === null ? `/v2/tape/recent?${tape}` : `/v2/tape?${tape}`;
        renderTape(panels.tape, (await getV2<{ trades: TapeTrade[] }>(path, signal)).data.trades);
      }),
      load(panels.smile, async () => renderSmile(panels.smile, (await getV2<SmileData>(`/v2/options/iv/smile?${iv}`, signal)).data)),
      load(panels.term, async () => renderTerm(panels.term, (await getV2<TermData>(`/v2/options/iv/term-structure?${iv}`, signal)).data)),
      loadStudy(),
    );
  } else if (bundle !== null) {
    renderMarket(panels.market, bundle.data, s.at);
  }
  await Promise.all(jobs);
  if (controller === ctl && !signal.aborted && ![...Object.values(panels)].some((p) => p.el.dataset['state'] === 'error')) showAlert(null);
  document.body.dataset['loaded'] = String(Date.now());
}

function stopPlay(): void {
  if (playing !== null) clearInterval(playing);
  playing = null;
  playBtn.textContent = 'Play';
  playBtn.setAttribute('aria-pressed', 'false');
}

function startPlay(): void {
  if (state.at === null || indexOf(line, state.at) >= line.count - 1) setState({ at: line.start }, 'levels');
  playBtn.textContent = 'Pause';
  playBtn.setAttribute('aria-pressed', 'true');
  playing = setInterval(() => {
    const i = state.at === null ? line.count - 1 : indexOf(line, state.at);
    if (i >= line.count - 1) {
      stopPlay();
      setState({ at: null });
      return;
    }
    setState({ at: instantAt(line, i + 1) }, 'levels');
  }, PLAY_STEP_MS);
}

keyForm.addEventListener('submit', (ev) => {
  ev.preventDefault();
  storeKey(keyInput.value);
  keyInput.value = '';
  showAlert(null);
  void refresh('all');
});
symbolSel.addEventListener('change', () => setState({ symbol: symbolSel.value as ViewState['symbol'] }));
modelSel.addEventListener('change', () => setState({ model: MODELS.find((m) => m === modelSel.value) ?? 'flow' }));
venuesBox.addEventListener('change', () =>
  setState({ venues: [...venuesBox.querySelectorAll<HTMLInputElement>('input:checked')].map((b) => b.value) }),
);
mountDaysSelector(panels.study, state.studyDays, (studyDays) => {
  state = { ...state, studyDays };
  history.replaceState(null, '', `${location.pathname}${formatState(state)}`);
  if (storedKey() !== null) void loadStudy();
});
slider.addEventListener('input', () => {
  const i = Number(slider.value);
  state = { ...state, at: i >= line.count - 1 ? null : instantAt(line, i) };
  showInstant();
});
slider.addEventListener('change', () => {
  stopPlay();
  setState({ at: state.at });
});
playBtn.addEventListener('click', () => (playing === null ? startPlay() : (stopPlay(), setState({}))));
liveBtn.addEventListener('click', () => {
  stopPlay();
  setState({ at: null });
});
setInterval(() => {
  if (state.at === null && playing === null && document.visibilityState === 'visible') void refresh('all');
}, LIVE_REFRESH_MS);

fillControls();
void refresh('all');
