import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocket } from 'ws';
import { startSandbox, type Sandbox } from '../sandbox.ts';
import { ResilientSocket } from '../../ws/resilient-socket.ts';
import { waitFor } from '../../ws/test-server.ts';

type Json = Record<string, unknown>;

async function client(url: string, frames: readonly string[]): Promise<{ ws: WebSocket; msgs: string[]; json: () => Json[] }> {
  const ws = new WebSocket(url);
  const msgs: string[] = [];
  ws.on('message', (d) => msgs.push(d.toString()));
  await new Promise<void>((r, j) => {
    ws.once('open', () => r());
    ws.once('error', j);
  });
  for (const f of frames) ws.send(f);
  return { ws, msgs, json: () => msgs.filter((m) => m.startsWith('{')).map((m) => JSON.parse(m) as Json) };
}

describe('sandbox venue servers', () => {
  let sb: Sandbox;
  before(async () => {
    sb = await startSandbox({ seed: 42, speed: 0, startMs: Date.UTC(2026, 0, 5, 12), timings: { deribitMinHeartbeatSec: 0.05 } });
  });
  after(async () => {
    await sb.stop();
  });

  test('deribit: subscribe ack, option/perp trades, ticker, index, DVOL, heartbeat, REST', async () => {
    const d = sb.urls.deribit;
    assert.ok(d);
    const inst = (await (await fetch(`${d.rest}/api/v2/public/get_instruments?currency=BTC&kind=option&expired=false`)).json()) as { result: Json[] };
    const first = inst.result[0];
    assert.ok(first && inst.result.length > 300);
    assert.equal(first.kind, 'option');
    assert.equal(new Date(Number(first.expiration_timestamp)).getUTCHours(), 8);
    const name = String(first.instrument_name);
    const c = await client(d.ws.main ?? '', [
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'public/subscribe', params: { channels: ['trades.option.BTC.100ms', `ticker.${name}.100ms`, 'trades.BTC-PERPETUAL.100ms', 'deribit_price_index.btc_usd', 'deribit_volatility_index.btc_usd'] } }),
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'public/set_heartbeat', params: { interval: 0.05 } }),
    ]);
    await waitFor(() => c.json().some((m) => m.id === 2));
    assert.equal((c.json().find((m) => m.id === 1)?.result as unknown[]).length, 5);
    sb.advance(6000);
    sb.emitTrades('deribit', 3, 'BTCUSDT');
    await waitFor(() => c.json().filter((m) => (m.params as Json | undefined)?.channel === 'trades.option.BTC.100ms').length > 0);
    await waitFor(() => c.json().some((m) => (m.params as Json | undefined)?.channel === `ticker.${name}.100ms`));
    const byCh = (ch: string): Json[] => c.json().filter((m) => (m.params as Json | undefined)?.channel === ch).map((m) => (m.params as Json).data as Json);
    const trade = (byCh('trades.option.BTC.100ms').flat() as unknown as Json[])[0];
    assert.ok(trade);
    for (const k of ['trade_id', 'trade_seq', 'timestamp', 'price', 'iv', 'index_price', 'direction', 'amount', 'instrument_name', 'mark_price']) assert.ok(k in trade, k);
    assert.ok(Number(trade.iv) > 10 && Number(trade.iv) < 300, 'iv in percent');
    const tk = byCh(`ticker.${name}.100ms`)[0];
    assert.ok(tk && typeof tk.mark_iv === 'number' && typeof (tk.greeks as Json).gamma === 'number' && typeof tk.open_interest === 'number');
    const perp = (byCh('trades.BTC-PERPETUAL.100ms').flat() as unknown as Json[])[0];
    assert.ok(perp && Number(perp.amount) % 10 === 0, 'inverse perp amount in USD, 10 USD contracts');
    assert.ok(typeof byCh('deribit_price_index.btc_usd')[0]?.price === 'number');
    assert.ok(Number(byCh('deribit_volatility_index.btc_usd')[0]?.volatility) > 20);
    // heartbeat: server sends test_request, answering keeps the connection
    await waitFor(() => c.msgs.some((m) => m.includes('test_request')));
    c.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'public/test', params: {} }));
    await waitFor(() => c.json().some((m) => m.id === 9 && (m.result as Json).version !== undefined));
    // ... not answering gets it dropped
    await new Promise<void>((r) => c.ws.once('close', () => r()));
    // delivered ledger = the trades written to the wire
    const onWire = c.json().flatMap((m) => (((m.params as Json | undefined)?.channel as string | undefined)?.startsWith('trades.option') ? ((m.params as Json).data as Json[]) : []));
    assert.deepEqual(onWire.map((t) => t.trade_id), sb.ledger.ids('deribit', 'option_trade'));
  });

  test('bybit: option/linear/spot topics, pong shapes, ticker snapshot then delta, paginated REST', async () => {
    const b = sb.urls.bybit;
    assert.ok(b);
    const page1 = (await (await fetch(`${b.rest}/v5/market/instruments-info?category=option&baseCoin=BTC&limit=100`)).json()) as { result: { list: Json[]; nextPageCursor: string } };
    assert.equal(page1.result.list.length, 100);
    assert.ok(page1.result.nextPageCursor);
    const page2 = (await (await fetch(`${b.rest}/v5/market/instruments-info?category=option&baseCoin=BTC&limit=100&cursor=${page1.result.nextPageCursor}`)).json()) as { result: { list: Json[] } };
    assert.notEqual(page2.result.list[0]?.symbol, page1.result.list[0]?.symbol);
    assert.equal(page1.result.list[0]?.optionsType === 'Call' || page1.result.list[0]?.optionsType === 'Put', true);
    const opt = String(page1.result.list[0]?.symbol);
    const o = await client(b.ws.option ?? '', [JSON.stringify({ op: 'subscribe', req_id: 'a', args: ['publicTrade.BTC', `tickers.${opt}`] }), '{"req_id":"p","op":"ping"}']);
    const l = await client(b.ws.linear ?? '', [JSON.stringify({ op: 'subscribe', req_id: 'b', args: ['publicTrade.BTCUSDT', 'tickers.BTCUSDT', 'allLiquidation.BTCUSDT', 'bogus.X'] }), '{"req_id":"q","op":"ping"}']);
    await waitFor(() => o.json().length >= 2 && l.json().length >= 2);
    assert.deepEqual((o.json().find((m) => m.type === 'COMMAND_RESP')?.data as Json).failTopics, []);
    assert.ok(o.json().some((m) => m.op === 'pong' && Array.isArray(m.args)));
    assert.ok(l.json().some((m) => m.op === 'ping' && m.ret_msg === 'pong' && m.success === true));
    assert.equal(l.json().find((m) => m.op === 'subscribe')?.success, false, 'unknown topic rejected');
    sb.advance(6000);
    sb.emitTrades('bybit', 2, 'BTCUSDT');
    await waitFor(() => o.json().some((m) => m.topic === 'publicTrade.BTC') && l.json().filter((m) => m.topic === 'tickers.BTCUSDT').length >= 2);
    const ot = (o.json().find((m) => m.topic === 'publicTrade.BTC')?.data as Json[])[0];
    assert.ok(ot);
    for (const k of ['T', 's', 'S', 'v', 'p', 'i', 'BT', 'mP', 'iP', 'mIv', 'iv']) assert.ok(k in ot, k);
    assert.ok(ot.S === 'Buy' || ot.S === 'Sell');
    const tks = l.json().filter((m) => m.topic === 'tickers.BTCUSDT');
    assert.deepEqual(tks.slice(0, 2).map((m) => m.type), ['snapshot', 'delta']);
    assert.ok('fundingRate' in (tks[0]?.data as Json) && 'openInterest' in (tks[0]?.data as Json));
    const pt = (l.json().find((m) => m.topic === 'publicTrade.BTCUSDT')?.data as Json[])[0];
    assert.ok(pt && typeof pt.v === 'string' && typeof pt.T === 'number');
    o.ws.close();
    l.ws.close();
  });

  test('okx: acks, option-trades in contracts, opt-summary, OI, funding, index, ping/pong, REST', async () => {
    const k = sb.urls.okx;
    assert.ok(k);
    const r = (await (await fetch(`${k.rest}/api/v5/public/instruments?instType=OPTION&instFamily=BTC-USD`)).json()) as { code: string; data: Json[] };
    assert.equal(r.code, '0');
    assert.equal(r.data[0]?.ctMult, '0.01');
    assert.equal(r.data[0]?.ctVal, '1');
    const inst = String(r.data[0]?.instId);
    const c = await client(k.ws.public ?? '', [
      JSON.stringify({ op: 'subscribe', args: [
        { channel: 'option-trades', instType: 'OPTION', instFamily: 'BTC-USD' }, { channel: 'opt-summary', instFamily: 'BTC-USD' },
        { channel: 'open-interest', instId: inst }, { channel: 'funding-rate', instId: 'BTC-USDT-SWAP' }, { channel: 'index-tickers', instId: 'BTC-USD' },
        { channel: 'trades', instId: 'BTC-USDT-SWAP' }, { channel: 'nope' },
      ] }),
      'ping',
    ]);
    await waitFor(() => c.msgs.includes('pong') && c.json().filter((m) => m.event === 'subscribe').length === 6 && c.json().some((m) => m.event === 'error'));
    sb.advance(6000);
    sb.emitTrades('okx', 3, 'BTCUSDT');
    const push = (ch: string): Json[] => c.json().filter((m) => (m.arg as Json | undefined)?.channel === ch && Array.isArray(m.data)).flatMap((m) => m.data as Json[]);
    await waitFor(() => push('option-trades').length >= 3 && push('opt-summary').length > 0 && push('open-interest').length > 0);
    const t = push('option-trades')[0];
    assert.ok(t);
    for (const f of ['fillVol', 'fwdPx', 'idxPx', 'instFamily', 'instId', 'markPx', 'optType', 'px', 'side', 'sz', 'tradeId', 'ts']) assert.equal(typeof t[f], 'string', f);
    assert.equal(Number(t.sz), Math.round(Number(t.sz)), 'sz in whole contracts');
    const last = sb.generated.entries('okx', 'option_trade').at(-1);
    assert.equal(push('option-trades').at(-1)?.tradeId, last?.tradeId);
    assert.ok(Number(push('open-interest')[0]?.oiCcy) * 100 - Number(push('open-interest')[0]?.oi) < 1e-6);
    assert.ok('fundingRate' in (push('funding-rate')[0] ?? {}));
    assert.ok(Number(push('index-tickers')[0]?.idxPx) > 50_000);
    assert.ok('markVol' in (push('opt-summary')[0] ?? {}));
    c.ws.close();
  });

  test('binance: combined streams via URL and SUBSCRIBE, option/perp/spot shapes, openInterest REST', async () => {
    const n = sb.urls.binance;
    assert.ok(n);
    const ex = (await (await fetch(`${n.rest}/eapi/v1/exchangeInfo`)).json()) as { optionSymbols: Json[] };
    const sym = ex.optionSymbols.find((s) => s.underlying === 'BTCUSDT');
    assert.ok(sym && sym.unit === 1 && (sym.side === 'CALL' || sym.side === 'PUT'));
    const exp = String(sym.symbol).split('-')[1];
    const oi = (await (await fetch(`${n.rest}/fapi/v1/openInterest?symbol=BTCUSDT`)).json()) as Json;
    assert.ok(Number(oi.openInterest) > 0);
    assert.equal((await fetch(`${n.rest}/fapi/v1/openInterest?symbol=NOPE`)).status, 400);
    const pub = await client(`${n.ws.public}?streams=btcusdt@optionTrade`, []);
    const mkt = await client(n.ws.market ?? '', [JSON.stringify({ method: 'SUBSCRIBE', params: ['btcusdt@optionMarkPrice', `btcusdt@optionOpenInterest@${exp}`, 'btcusdt@aggTrade', 'btcusdt@markPrice@1s', 'btcusdt@forceOrder'], id: 1 })]);
    const spot = await client(`${n.ws.spot}?streams=btcusdt@trade`, []);
    await waitFor(() => mkt.json().some((m) => m.id === 1 && m.result === null));
    sb.advance(6000);
    sb.emitTrades('binance', 2, 'BTCUSDT');
    await waitFor(() => pub.json().length >= 2 && mkt.json().some((m) => m.stream === 'btcusdt@optionMarkPrice') && spot.json().length > 0);
    const ot = pub.json()[0] as { stream: string; data: Json };
    assert.equal(ot.stream, 'btcusdt@optionTrade');
    assert.equal(ot.data.e, 'trade');
    assert.equal(ot.data.m, ot.data.S === 'SELL');
    const mp = mkt.json().find((m) => m.stream === 'btcusdt@optionMarkPrice')?.data as Json[];
    assert.ok(Array.isArray(mp) && 'vo' in (mp[0] ?? {}) && 'mp' in (mp[0] ?? {}));
    const agg = mkt.json().find((m) => m.stream === 'btcusdt@aggTrade')?.data as Json;
    assert.equal(agg.e, 'aggTrade');
    assert.equal((mkt.json().find((m) => m.stream === 'btcusdt@markPrice@1s')?.data as Json).e, 'markPriceUpdate');
    assert.equal((spot.json()[0]?.data as Json).e, 'trade');
    for (const x of [pub, mkt, spot]) x.ws.close();
  });

  test('faults: disconnect -> ResilientSocket resubscribes; malformed frame; silence -> stale reconnect; burst = exact ledger', async () => {
    const frames: string[] = [];
    let opens = 0;
    const sock = new ResilientSocket({
      url: sb.urls.okx?.ws.public ?? '',
      venue: 'sandbox_okx',
      staleMs: 300,
      backoff: { baseMs: 20, maxMs: 50 },
      onOpen: () => {
        opens++;
        return [JSON.stringify({ op: 'subscribe', args: [{ channel: 'option-trades', instType: 'OPTION', instFamily: 'BTC-USD' }] })];
      },
      onFrame: (f) => frames.push(String(f)),
    }).start();
    try {
      await waitFor(() => frames.some((f) => f.includes('"event":"subscribe"')));
      const before = sb.ledger.count('okx', 'option_trade');
      sb.faults.burst('okx', 250, 'BTCUSDT');
      await waitFor(() => frames.filter((f) => f.includes('"option-trades"') && f.includes('"data"')).length >= 1);
      assert.equal(sb.ledger.count('okx', 'option_trade') - before, 250, 'a burst of 250 delivered = 250 in the ledger');
      const got = frames.filter((f) => f.includes('"data"')).flatMap((f) => (JSON.parse(f) as { data: Json[] }).data);
      assert.equal(got.length, 250);

      assert.equal(sb.faults.disconnect('okx'), 1);
      await waitFor(() => opens === 2 && frames.filter((f) => f.includes('"event":"subscribe"')).length === 2);

      const n0 = frames.length;
      assert.equal(sb.faults.malformed('okx', 'truncated'), 1);
      await waitFor(() => frames.length > n0);
      assert.throws(() => JSON.parse(frames.at(-1) ?? ''));

      sb.faults.silence('okx', 700);
      await waitFor(() => opens >= 3, 3000);
    } finally {
      await sock.close();
    }
  });
});
