/** The role outage test's result table: one row per outage and role, recovery times in seconds after the broker is back. */
import type { RoleName } from './deployments.ts';
import type { DeploymentOutage } from './outage.ts';
import type { RoleOutageResult } from './run.ts';

interface Row {
  readonly o: DeploymentOutage;
  readonly role: RoleName;
}

const s = (v: number | null): string => (v === null ? 'FAIL' : v.toFixed(1));
const has = (r: Row, what: 'publish' | 'compute' | 'serve'): boolean =>
  r.role === 'all' || (what === 'publish' ? r.role === 'ingest' : what === 'compute' ? r.role === 'processors' : r.role === 'query-api');
const ticks = (o: DeploymentOutage): string => {
  const t = Object.values(o.recovery.snapshotTick);
  return t.length === 0 ? '' : ` (tick ${Math.max(...t)})`;
};

const COLUMNS: readonly [string, (r: Row) => string][] = [
  ['outage', (r) => `${r.o.planned.downMs / 1000} s ${r.o.planned.aim}`],
  ['role', (r) => r.role],
  ['SIGTERM vs tick s', (r) => ((r.o.stopAt - r.o.tick) / 1000).toFixed(1)],
  ['unavailable s', (r) => ((r.o.upAt - r.o.stopAt) / 1000).toFixed(1)],
  ['same pid', (r) => (r.o.pids[r.role]?.alive === true && r.o.pids[r.role]?.before === r.o.pids[r.role]?.after ? 'yes' : 'NO')],
  ['publish s', (r) => (has(r, 'publish') ? s(r.o.recovery.publishS) : '')],
  ['backlog s', (r) => (has(r, 'publish') ? s(r.o.recovery.backlogS) : '')],
  ['behind s', (r) => (has(r, 'compute') ? r.o.snapshotsBehindS.toFixed(0) : '')],
  ['snapshots s', (r) => (has(r, 'compute') ? `${s(r.o.recovery.snapshotsS)}${ticks(r.o)}` : '')],
  ['/v2 s', (r) => (has(r, 'serve') ? s(r.o.recovery.v2S) : '')],
  ['WS tape s', (r) => (has(r, 'serve') ? s(r.o.recovery.wsTapeS) : '')],
  ['WS levels s', (r) => (has(r, 'serve') ? s(r.o.recovery.wsLevelsS) : '')],
  ['API failed', (r) => (has(r, 'serve') ? String(r.o.apiFailures) : '')],
  [
    'aim hit',
    (r) =>
      !has(r, 'compute')
        ? ''
        : r.o.planned.aim === 'durability wait'
          ? `drain look-ups failed ${r.o.drainLookupErrors}, unconfirmed ${r.o.drainUnconfirmed}`
          : r.o.planned.aim === 'group join'
            ? `group ${r.o.groupState ?? '?'}`
            : '',
  ],
];

export function formatOutageTable(result: RoleOutageResult): string {
  const rows: Row[] = result.outages.flatMap((per) =>
    per.flatMap((o) =>
      (o.deployment === 'all' ? ['all' as const] : (['ingest', 'processors', 'query-api'] as const)).map((role) => ({ o, role })),
    ),
  );
  const cells = [COLUMNS.map(([h]) => h), ...rows.map((r) => COLUMNS.map(([, f]) => f(r)))];
  const widths = COLUMNS.map((_, c) => Math.max(...cells.map((row) => (row[c] as string).length)));
  const line = (row: readonly string[]): string =>
    `| ${row.map((v, c) => (c < 2 ? v.padEnd(widths[c] ?? 0) : v.padStart(widths[c] ?? 0))).join(' | ')} |`;
  const rule = `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`;
  const [head, ...body] = cells;
  const ledger = result.ledger
    .map((l) => `${l.deployment}: offered ${l.count.offered}, stored ${l.count.stored}, lost ${l.count.lost}, doubled ${l.count.doubled}`)
    .join('; ');
  const revived = Object.entries(result.consumerRestarts)
    .map(([name, n]) => `${name} ${n}`)
    .join(', ');
  return [
    line(head ?? []),
    rule,
    ...body.map(line),
    `ledger (option trades, whole run): ${ledger}`,
    `consumers run again after kafkajs stopped them (gex_bus_consumer_restarts_total): ${revived}`,
  ].join('\n');
}
