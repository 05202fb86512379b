/**
 * The level study (/v2/gex/level-study) of the selected symbol, model and venues over the last 7, 30 or 90 days:
 * per level (hvl, call resistance, put support) its hold rate against the placebo mirror level's, as bars in a
 * table with the counts and the edge, and the mean realized volatility per gamma regime. Definitions: the header
 * of processors/analytics/level-study.ts.
 */
import type { LevelStudy, StudyLevel } from '#processors/analytics/level-study.ts';
import { clearCharts, COLORS } from '../charts.ts';
import type { PanelView } from '../panel.ts';
import { DEFAULT_STUDY_DAYS, gexParams, STUDY_DAYS, type StudyDays, type ViewState } from '../state.ts';

export type LevelStudyData = LevelStudy & { readonly symbol: string; readonly positioning: string };

const LEVELS: readonly (readonly [StudyLevel, string, string])[] = [
  ['hvl', 'hvl', COLORS.hvl],
  ['call_resistance', 'call resistance', COLORS.call],
  ['put_support', 'put support', COLORS.put],
];
const PLACEBO_COLOR = '#8a96a3';
const REGIMES = [
  ['net_gex_positive', 'net GEX > 0'],
  ['net_gex_negative', 'net GEX < 0'],
  ['spot_above_hvl', 'spot above hvl'],
  ['spot_below_hvl', 'spot below hvl'],
] as const;

/** The route's path for a view; the window ends now whatever the replay instant. */
export function levelStudyPath(s: ViewState): string {
  const q = gexParams({ ...s, at: null });
  q.set('days', String(s.studyDays));
  return `/v2/gex/level-study?${q.toString().replaceAll('%2C', ',')}`;
}

/** The window selector, between the help line and the tables (it survives redraws and errors). */
export function mountDaysSelector(view: PanelView, initial: StudyDays, onChange: (days: StudyDays) => void): void {
  const label = document.createElement('label');
  label.className = 'panel-control';
  const select = document.createElement('select');
  select.id = `${view.el.id}-days`;
  select.append(...STUDY_DAYS.map((d) => new Option(`last ${d} days`, String(d), false, d === initial)));
  select.addEventListener('change', () => onChange(STUDY_DAYS.find((d) => String(d) === select.value) ?? DEFAULT_STUDY_DAYS));
  label.append('Window ', select);
  view.el.insertBefore(label, view.box);
}

const pct = (r: number | null): string => (r === null ? 'n/a' : `${(r * 100).toFixed(1)}%`);
const points = (e: number | null): string => (e === null ? 'n/a' : `${e < 0 ? '−' : '+'}${Math.abs(e * 100).toFixed(1)} pp`);
const count = (n: number): string => n.toLocaleString('en-US');
const minute = (iso: string): string => iso.slice(0, 16).replace('T', ' ');

/** 4 h, 30 min, 1 d. */
function duration(seconds: number): string {
  if (seconds % 86_400 === 0) return `${seconds / 86_400} d`;
  if (seconds % 3_600 === 0) return `${seconds / 3_600} h`;
  return `${Math.round(seconds / 60)} min`;
}

function cell(text: string, field?: string, value?: number | null): HTMLTableCellElement {
  const td = document.createElement('td');
  td.textContent = text;
  if (field !== undefined) td.dataset['field'] = field;
  if (value !== undefined && value !== null) td.dataset['value'] = String(value);
  return td;
}

/** A rate as a bar (0–100%) and its value; "n/a" with an empty bar. */
function rateCell(rate: number | null, color: string, field: string): HTMLTableCellElement {
  const td = cell('', field, rate);
  td.className = 'rate';
  const track = document.createElement('span');
  track.className = 'bar-track';
  track.setAttribute('aria-hidden', 'true');
  const bar = document.createElement('span');
  bar.className = 'bar';
  bar.style.width = `${Math.min(100, Math.max(0, (rate ?? 0) * 100))}%`;
  bar.style.background = color;
  track.append(bar);
  const value = document.createElement('span');
  value.textContent = pct(rate);
  td.append(track, value);
  return td;
}

function table(caption: string, head: readonly string[], rows: readonly HTMLTableRowElement[], label: string): HTMLElement {
  const t = document.createElement('table');
  t.className = 'study-table';
  const cap = document.createElement('caption');
  cap.textContent = caption;
  const tr = document.createElement('tr');
  for (const h of head) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = h;
    tr.append(th);
  }
  const thead = document.createElement('thead');
  thead.append(tr);
  const tbody = document.createElement('tbody');
  tbody.append(...rows);
  t.append(cap, thead, tbody);
  const wrap = document.createElement('div');
  wrap.className = 'table-wrap';
  wrap.tabIndex = 0;
  wrap.setAttribute('role', 'region');
  wrap.setAttribute('aria-label', label);
  wrap.append(t);
  return wrap;
}

function levelRows(d: LevelStudyData): HTMLTableRowElement[] {
  return LEVELS.map(([kind, name, color]) => {
    const l = d.levels[kind];
    const tr = document.createElement('tr');
    tr.dataset['level'] = kind;
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = name;
    tr.append(
      th,
      rateCell(l.hold_rate, color, 'hold_rate'),
      rateCell(l.placebo.hold_rate, PLACEBO_COLOR, 'placebo_hold_rate'),
      cell(points(l.edge), 'edge', l.edge),
      ...(
        [
          ['instants', l.instants],
          ['touched', l.touched],
          ['held', l.held],
          ['broke', l.broke],
          ['placebo_touched', l.placebo.touched],
          ['placebo_held', l.placebo.held],
        ] as const
      ).map(([field, n]) => cell(count(n), field, n)),
    );
    return tr;
  });
}

function regimeRows(d: LevelStudyData): HTMLTableRowElement[] {
  return REGIMES.map(([kind, name]) => {
    const r = d.regimes[kind];
    const tr = document.createElement('tr');
    tr.dataset['regime'] = kind;
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = name;
    tr.append(th, cell(count(r.count), 'count', r.count), cell(pct(r.mean_rv), 'mean_rv', r.mean_rv));
    return tr;
  });
}

export function renderLevelStudy(view: PanelView, d: LevelStudyData, days: StudyDays): void {
  const sampled = d.instants - d.missing;
  const horizon = duration(d.horizon_seconds);
  view.data({ days, instants: d.instants, missing: d.missing, from: d.from, to: d.to, positioning: d.positioning });
  if (sampled <= 0) {
    view.set(
      'empty',
      `No stored snapshots over the last ${days} days with a ${horizon} path after them yet (${count(d.instants)} grid instants, none sampled).`,
    );
    return;
  }
  const box = document.createElement('div');
  box.className = 'study';
  box.append(
    table(
      'Hold rate of each level against its placebo mirror (2·S − L); edge = hold rate − placebo hold rate',
      ['level', 'hold rate', 'placebo hold rate', 'edge', 'instants', 'touched', 'held', 'broke', 'placebo touched', 'placebo held'],
      levelRows(d),
      'level hold rates',
    ),
    table('Mean annualized realized volatility per regime', ['regime', 'instants', 'mean RV'], regimeRows(d), 'regimes'),
  );
  clearCharts(view.box);
  view.box.append(box);
  view.set(
    'ready',
    `Horizon ${horizon}, step ${duration(d.step_seconds)}, last ${days} days (${minute(d.from)} to ${minute(d.to)} UTC), ` +
      `${d.positioning} model; ${count(d.missing)} of ${count(d.instants)} instants missing. On the simulated demo market an edge ` +
      'near zero is expected: its price does not react to dealer hedging.',
  );
}
