/**
 * Child process for clickhouse/persistence.test.ts: `node --import tsx persist-child.ts <dataPath> <mode> <from> <n>`.
 * mode `exit`: migrate, insert n option trades, close, exit 0. mode `kill`: same, then SIGKILL itself right
 * after insert() resolved. mode `open`: only try to open the store and report.
 */
import { migrate } from '../migrate.ts';
import { optionTradeRow } from '../rows.ts';
import { createStore } from '../store.ts';
import { optionTrade } from './fixtures.ts';

const [dataPath, mode, fromArg, nArg] = process.argv.slice(2);
if (dataPath === undefined || mode === undefined) throw new Error('usage: persist-child.ts <dataPath> <exit|kill|open> [from] [n]');

if (mode === 'open') {
  try {
    const store = await createStore({ dataPath });
    process.stdout.write('opened\n');
    await store.close();
  } catch (err) {
    process.stdout.write(`error:${err instanceof Error ? `${err.name}:${err.message}` : String(err)}\n`);
  }
  process.exit(0);
}

const from = Number(fromArg ?? 0);
const n = Number(nArg ?? 1);
const store = await createStore({ dataPath });
await migrate(store);
const rows = Array.from({ length: n }, (_, i) => optionTradeRow(optionTrade(from + i)));
await store.insert('option_trades', rows, { dedupToken: `child-${from}-${n}` });
process.stdout.write('inserted\n');
if (mode === 'kill') process.kill(process.pid, 'SIGKILL');
await store.close();
process.exit(0);
