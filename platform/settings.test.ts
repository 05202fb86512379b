import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig, splitArgs, settingsHelp, ConfigError, SETTINGS } from './settings.ts';

test('defaults give the embedded product: no Kafka, no ClickHouse URL, ./data, port 8080', () => {
  const c = loadConfig({});
  assert.equal(c.kafkaBrokers, undefined);
  assert.equal(c.clickhouseUrl, undefined);
  assert.equal(c.dataDir, './data');
  assert.equal(c.port, 8080);
  assert.deepEqual(c.symbols, ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'HYPEUSDT']);
  assert.equal(c.snapshotIntervalMs, 30_000);
  assert.equal(c.sandbox, false);
});

test('flag beats environment beats default', () => {
  const { flags, positionals } = splitArgs(['all', '--port', '9001', '--venues=okx,deribit', '--sandbox']);
  assert.deepEqual(positionals, ['all']);
  const c = loadConfig({ PORT: '9000', KAFKA_BROKERS: '127.0.0.1:9092, 127.0.0.1:9093', SANDBOX: 'false' }, flags);
  assert.equal(c.port, 9001);
  assert.deepEqual(c.venues, ['okx', 'deribit']);
  assert.deepEqual(c.kafkaBrokers, ['127.0.0.1:9092', '127.0.0.1:9093']);
  assert.equal(c.sandbox, true);
});

test('every invalid setting is reported by name, all at once', () => {
  try {
    loadConfig({ PORT: '70000', SYMBOLS: 'BTCUSDT,DOGEUSDT', CLICKHOUSE_URL: 'not a url' });
    assert.fail('expected ConfigError');
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    assert.equal(err.problems.length, 3);
    assert.ok(err.problems.some((p) => p.startsWith('PORT')));
    assert.ok(err.problems.some((p) => p.startsWith('SYMBOLS')));
    assert.ok(err.problems.some((p) => p.startsWith('CLICKHOUSE_URL')));
  }
});

test('--help lists every setting with its flag, variable and default', () => {
  const help = settingsHelp();
  for (const s of Object.values(SETTINGS)) {
    assert.ok(help.includes(`--${s.flag}`), s.flag);
    assert.ok(help.includes(s.env), s.env);
  }
  assert.match(help, /--port\s+PORT\s+8080/);
});
