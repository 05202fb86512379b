import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocket } from 'ws';
import { startSandbox, type Sandbox } from '../sandbox.ts';
import { ResilientSocket } from '#ingest/transport/resilient-socket.ts';
import { waitFor } from '#ingest/transport/testing/ws-test-server.ts';

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
    sb = await startSandbox({
      seed: 42,
      speed: 0,
      startMs: Date.UTC(2026, 0, 5, 12),
      timings: { deribitMinHeartbeatSec: 0.05, thalexClientPingTimeoutMs: 800, deltaHeartbeatMs: 50, paradexPingIntervalMs: 50 },
    });
  });
  after(async () => {
    await sb.stop();
  });

  test('deribit: subscribe ack, option/perp trades, ticker, index, DVOL, heartbeat, REST', async () => {
    const d = sb.urls.deribit;
    assert.ok(d);
    const inst = (await (await fetch(`${d.rest}/api/v2/public/get_instruments?currency=BTC&kind=option&expired=false`)).json()) as {
      result: Json[];
    };
    const first = inst.result[0];
    assert.ok(first && inst.result.length > 300);
    assert.equal(first.kind, 'option');
    assert.equal(new Date(Number(first.expiration_timestamp)).getUTCHours(), 8);
    const name = String(first.instrument_name);
    const c = await client(d.ws.main ?? '', [
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'public/subscribe',
        params: {
          channels: [
            'trades.option.BTC.100ms',
            `ticker.${name}.100ms`,
            'trades.BTC-PERPETUAL.100ms',
            'deribit_price_index.btc_usd',
            'deribit_volatility_index.btc_usd',
          ],
        },
      }),
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'public/set_heartbeat', params: { interval: 0.05 } }),
    ]);
    await waitFor(() => c.json().some((m) => m.id === 2));
    assert.equal((c.json().find((m) => m.id === 1)?.result as unknown[]).length, 5);
    sb.advance(6000);
    sb.emitTrades('deribit', 3, 'BTCUSDT');
    await waitFor(() => c.json().filter((m) => (m.params as Json | undefined)?.channel === 'trades.option.BTC.100ms').length > 0);
    await waitFor(() => c.json().some((m) => (m.params as Json | undefined)?.channel === `ticker.${name}.100ms`));
    const byCh = (ch: string): Json[] =>
      c
        .json()
        .filter((m) => (m.params as Json | undefined)?.channel === ch)
        .map((m) => (m.params as Json).data as Json);
    const trade = (byCh('trades.option.BTC.100ms').flat() as unknown as Json[])[0];
    assert.ok(trade);
    for (const k of [
      'trade_id',
      'trade_seq',
      'timestamp',
      'price',
      'iv',
      'index_price',
      'direction',
      'amount',
      'instrument_name',
      'mark_price',
    ])
      assert.ok(k in trade, k);
    assert.ok(Number(trade.iv) > 10 && Number(trade.iv) < 300, 'iv in percent');
    const tk = byCh(`ticker.${name}.100ms`)[0];
    assert.ok(
      tk && typeof tk.mark_iv === 'number' && typeof (tk.greeks as Json).gamma === 'number' && typeof tk.open_interest === 'number',
    );
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
    const onWire = c
      .json()
      .flatMap((m) =>
        ((m.params as Json | undefined)?.channel as string | undefined)?.startsWith('trades.option')
          ? ((m.params as Json).data as Json[])
          : [],
      );
    assert.deepEqual(
      onWire.map((t) => t.trade_id),
      sb.ledger.ids('deribit', 'option_trade'),
    );
  });

  test('bybit: option/linear/spot topics, pong shapes, ticker snapshot then delta, paginated REST', async () => {
    const b = sb.urls.bybit;
    assert.ok(b);
    const page1 = (await (await fetch(`${b.rest}/v5/market/instruments-info?category=option&baseCoin=BTC&limit=100`)).json()) as {
      result: { list: Json[]; nextPageCursor: string };
    };
    assert.equal(page1.result.list.length, 100);
    assert.ok(page1.result.nextPageCursor);
    const page2 = (await (
      await fetch(`${b.rest}/v5/market/instruments-info?category=option&baseCoin=BTC&limit=100&cursor=${page1.result.nextPageCursor}`)
    ).json()) as { result: { list: Json[] } };
    assert.notEqual(page2.result.list[0]?.symbol, page1.result.list[0]?.symbol);
    assert.equal(page1.result.list[0]?.optionsType === 'Call' || page1.result.list[0]?.optionsType === 'Put', true);
    const opt = String(page1.result.list[0]?.symbol);
    const o = await client(b.ws.option ?? '', [
      JSON.stringify({ op: 'subscribe', req_id: 'a', args: ['publicTrade.BTC', `tickers.${opt}`] }),
      '{"req_id":"p","op":"ping"}',
    ]);
    const l = await client(b.ws.linear ?? '', [
      JSON.stringify({
        op: 'subscribe',
        req_id: 'b',
        args: ['publicTrade.BTCUSDT', 'tickers.BTCUSDT', 'allLiquidation.BTCUSDT', 'bogus.X'],
      }),
      '{"req_id":"q","op":"ping"}',
    ]);
    await waitFor(() => o.json().length >= 2 && l.json().length >= 2);
    assert.deepEqual((o.json().find((m) => m.type === 'COMMAND_RESP')?.data as Json).failTopics, []);
    assert.ok(o.json().some((m) => m.op === 'pong' && Array.isArray(m.args)));
    assert.ok(l.json().some((m) => m.op === 'ping' && m.ret_msg === 'pong' && m.success === true));
    assert.equal(l.json().find((m) => m.op === 'subscribe')?.success, false, 'unknown topic rejected');
    sb.advance(6000);
    sb.emitTrades('bybit', 2, 'BTCUSDT');
    await waitFor(
      () => o.json().some((m) => m.topic === 'publicTrade.BTC') && l.json().filter((m) => m.topic === 'tickers.BTCUSDT').length >= 2,
    );
    const ot = (o.json().find((m) => m.topic === 'publicTrade.BTC')?.data as Json[])[0];
    assert.ok(ot);
    for (const k of ['T', 's', 'S', 'v', 'p', 'i', 'BT', 'mP', 'iP', 'mIv', 'iv']) assert.ok(k in ot, k);
    assert.ok(ot.S === 'Buy' || ot.S === 'Sell');
    const tks = l.json().filter((m) => m.topic === 'tickers.BTCUSDT');
    assert.deepEqual(
      tks.slice(0, 2).map((m) => m.type),
      ['snapshot', 'delta'],
    );
    assert.ok('fundingRate' in (tks[0]?.data as Json) && 'openInterest' in (tks[0]?.data as Json));
    const pt = (l.json().find((m) => m.topic === 'publicTrade.BTCUSDT')?.data as Json[])[0];
    assert.ok(pt && typeof pt.v === 'string' && typeof pt.T === 'number');
    o.ws.close();
    l.ws.close();
  });

  test('okx: acks, option-trades in contracts, opt-summary, OI, funding, index, ping/pong, REST', async () => {
    const k = sb.urls.okx;
    assert.ok(k);
    const r = (await (await fetch(`${k.rest}/api/v5/public/instruments?instType=OPTION&instFamily=BTC-USD`)).json()) as {
      code: string;
      data: Json[];
    };
    assert.equal(r.code, '0');
    assert.equal(r.data[0]?.ctMult, '0.01');
    assert.equal(r.data[0]?.ctVal, '1');
    const inst = String(r.data[0]?.instId);
    const c = await client(k.ws.public ?? '', [
      JSON.stringify({
        op: 'subscribe',
        args: [
          { channel: 'option-trades', instType: 'OPTION', instFamily: 'BTC-USD' },
          { channel: 'opt-summary', instFamily: 'BTC-USD' },
          { channel: 'open-interest', instId: inst },
          { channel: 'funding-rate', instId: 'BTC-USDT-SWAP' },
          { channel: 'index-tickers', instId: 'BTC-USD' },
          { channel: 'trades', instId: 'BTC-USDT-SWAP' },
          { channel: 'nope' },
        ],
      }),
      'ping',
    ]);
    await waitFor(
      () =>
        c.msgs.includes('pong') &&
        c.json().filter((m) => m.event === 'subscribe').length === 6 &&
        c.json().some((m) => m.event === 'error'),
    );
    sb.advance(6000);
    sb.emitTrades('okx', 3, 'BTCUSDT');
    const push = (ch: string): Json[] =>
      c
        .json()
        .filter((m) => (m.arg as Json | undefined)?.channel === ch && Array.isArray(m.data))
        .flatMap((m) => m.data as Json[]);
    await waitFor(() => push('option-trades').length >= 3 && push('opt-summary').length > 0 && push('open-interest').length > 0);
    const t = push('option-trades')[0];
    assert.ok(t);
    for (const f of ['fillVol', 'fwdPx', 'idxPx', 'instFamily', 'instId', 'markPx', 'optType', 'px', 'side', 'sz', 'tradeId', 'ts'])
      assert.equal(typeof t[f], 'string', f);
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
    const mkt = await client(n.ws.market ?? '', [
      JSON.stringify({
        method: 'SUBSCRIBE',
        params: [
          'btcusdt@optionMarkPrice',
          `btcusdt@optionOpenInterest@${exp}`,
          'btcusdt@aggTrade',
          'btcusdt@markPrice@1s',
          'btcusdt@forceOrder',
        ],
        id: 1,
      }),
    ]);
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

  test('derive: POST get_all_instruments (paginated, GET refused), subscribe status, string trades, ticker_slim, spot_feed', async () => {
    const d = sb.urls.derive;
    assert.ok(d);
    const post = async (body: unknown): Promise<{ result: { instruments: Json[]; pagination: Json } }> =>
      (await (
        await fetch(`${d.rest}/v3/public/get_all_instruments`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json()) as never;
    assert.equal((await fetch(`${d.rest}/v3/public/get_all_instruments?instrument_type=option&currency=BTC`)).status, 405);
    const p1 = await post({ instrument_type: 'option', currency: 'BTC', expired: false, page: 1, page_size: 100 });
    assert.equal(p1.result.instruments.length, 100);
    assert.ok(Number(p1.result.pagination.num_pages) >= 2);
    const p2 = await post({ instrument_type: 'option', currency: 'BTC', expired: false, page: 2, page_size: 100 });
    assert.notEqual(p2.result.instruments[0]?.instrument_name, p1.result.instruments[0]?.instrument_name);
    const opt = p1.result.instruments[0] as { instrument_name: string; option_details: { expiry: number; strike: string } };
    assert.match(opt.instrument_name, /^BTC-\d{8}-\d+-[CP]$/);
    assert.equal(new Date(opt.option_details.expiry * 1000).getUTCHours(), 8);
    assert.equal(
      (await post({ instrument_type: 'option', currency: 'SOL', page: 1, page_size: 1000 })).result.instruments.length,
      0,
      'no SOL options',
    );
    const c = await client(d.ws.main ?? '', [
      JSON.stringify({
        id: 1,
        method: 'subscribe',
        params: { channels: ['trades.option.BTC', `ticker_slim.${opt.instrument_name}.1000`, 'spot_feed.BTC', 'bogus.x'] },
      }),
      JSON.stringify({ id: 2, method: 'subscribe', params: { channels: ['ticker.BTC-PERP.100ms'] } }),
    ]);
    await waitFor(() => c.json().some((m) => m.id === 2));
    assert.deepEqual((c.json().find((m) => m.id === 1)?.result as Json).status, {
      'trades.option.BTC': 'ok',
      [`ticker_slim.${opt.instrument_name}.1000`]: 'ok',
      'spot_feed.BTC': 'ok',
      'bogus.x': 'Invalid channel',
    });
    assert.match(String((c.json().find((m) => m.id === 2)?.error as Json).data), /deprecated/);
    sb.advance(6000);
    sb.emitTrades('derive', 3, 'BTCUSDT');
    const data = (ch: string): unknown[] =>
      c
        .json()
        .filter((m) => (m.params as Json | undefined)?.channel === ch)
        .map((m) => (m.params as Json).data);
    await waitFor(
      () =>
        data('trades.option.BTC').length > 0 &&
        data(`ticker_slim.${opt.instrument_name}.1000`).length > 0 &&
        data('spot_feed.BTC').length > 0,
    );
    const t = (data('trades.option.BTC').flat() as Json[])[0];
    assert.ok(
      t && typeof t.trade_price === 'string' && typeof t.trade_amount === 'string' && (t.direction === 'buy' || t.direction === 'sell'),
    );
    const tk = (data(`ticker_slim.${opt.instrument_name}.1000`)[0] as { instrument_ticker: { option_pricing: Json; stats: Json } })
      .instrument_ticker;
    assert.ok(Number(tk.option_pricing.i) > 0.1 && Number(tk.option_pricing.i) < 3, 'IV as a fraction');
    assert.ok('oi' in tk.stats);
    c.ws.close();
  });

  test('thalex: instruments, public/subscribe, positional recent_trades, ticker, price_index; no client pings -> dropped', async () => {
    const x = sb.urls.thalex;
    assert.ok(x);
    const r = (await (await fetch(`${x.rest}/api/v2/public/instruments`)).json()) as { result: Json[] };
    const opt = r.result.find((i) => i.type === 'option' && String(i.instrument_name).startsWith('BTC-'));
    assert.ok(opt && typeof opt.expiration_timestamp === 'number' && r.result.some((i) => i.type === 'combination'));
    const c = await client(x.ws.main ?? '', [
      JSON.stringify({
        method: 'public/subscribe',
        params: { channels: ['recent_trades.BTCUSD.all', `ticker.${String(opt.instrument_name)}.1000ms`, 'price_index.BTCUSD'] },
        id: 1,
      }),
    ]);
    const pinger = setInterval(() => c.ws.ping(), 50);
    try {
      await waitFor(() => c.json().some((m) => m.id === 1));
      sb.advance(6000);
      sb.emitTrades('thalex', 3, 'BTCUSDT');
      const notes = (ch: string): unknown[] =>
        c
          .json()
          .filter((m) => m.channel_name === ch)
          .map((m) => m.notification);
      await waitFor(
        () =>
          notes('recent_trades.BTCUSD.all').length > 0 &&
          notes('price_index.BTCUSD').length > 0 &&
          notes(`ticker.${String(opt.instrument_name)}.1000ms`).length > 0,
      );
      const row = (notes('recent_trades.BTCUSD.all')[0] as unknown[][])[0];
      assert.ok(
        row && row.length === 6 && typeof row[0] === 'number' && typeof row[3] === 'number' && Number(row[3]) < 1e11,
        '[price, size, side, time_s, instrument, implied_taker]',
      );
      assert.ok(typeof (notes(`ticker.${String(opt.instrument_name)}.1000ms`)[0] as Json).iv === 'number');
      await new Promise((res) => setTimeout(res, 1000));
      assert.equal(c.ws.readyState, WebSocket.OPEN, 'a pinging client stays');
    } finally {
      clearInterval(pinger);
    }
    await new Promise<void>((res) => c.ws.once('close', () => res()));
  });

  test('delta: products (12:00Z, contract_value, cursor pages), subscriptions, chain ticker, trades in contracts, heartbeat', async () => {
    const x = sb.urls.delta_india;
    assert.ok(x && sb.urls.delta && sb.urls.delta.rest !== x.rest, 'delta_india and delta on two hosts');
    const page = async (after: string | null): Promise<{ result: Json[]; meta: { after: string | null } }> =>
      (await (
        await fetch(
          `${x.rest}/v2/products?contract_types=perpetual_futures,call_options,put_options&states=live&page_size=100${after ? `&after=${after}` : ''}`,
        )
      ).json()) as never;
    const p1 = await page(null);
    assert.equal(p1.result.length, 100);
    assert.ok(p1.meta.after);
    const p2 = await page(p1.meta.after);
    assert.notEqual(p2.result[0]?.symbol, p1.result[0]?.symbol);
    const opt = [...p1.result, ...p2.result].find(
      (p) => p.contract_type === 'call_options' && (p.underlying_asset as Json).symbol === 'BTC',
    );
    assert.ok(opt);
    assert.match(String(opt.settlement_time), /T12:00:00Z$/);
    assert.equal(opt.contract_value, '0.001');
    const chain = `BTC-${String(opt.symbol).split('-')[3]}`;
    const c = await client(x.ws.main ?? '', [
      '{"type":"enable_heartbeat"}',
      JSON.stringify({
        type: 'subscribe',
        payload: {
          channels: [
            { name: 'trades', symbols: ['call_options', 'put_options', 'BTCUSD'] },
            { name: 'ticker', symbols: [chain, 'BTCUSD'] },
            { name: 'v2/ticker', symbols: ['BTCUSD'] },
          ],
        },
      }),
    ]);
    await waitFor(() => c.json().some((m) => m.type === 'subscriptions') && c.json().some((m) => m.type === 'heartbeat'));
    assert.match(String(((c.json().find((m) => m.type === 'subscriptions')?.channels as Json[])[2] ?? {}).error), /forbidden/);
    sb.advance(6000);
    sb.emitTrades('delta_india', 3, 'BTCUSDT');
    await waitFor(
      () =>
        c.json().filter((m) => m.type === 'trades' && String(m.sy).includes('-')).length >= 3 &&
        c.json().some((m) => m.type === 'ticker' && m.sy === chain),
    );
    const t = c.json().find((m) => m.type === 'trades' && String(m.sy).includes('-'));
    assert.ok(t && typeof t.p === 'string' && Number.isInteger(t.s) && (t.r === 't' || t.r === 'm') && Number(t.t) > 1e15, 'contracts, µs');
    const tk = c.json().find((m) => m.type === 'ticker' && m.sy === chain);
    assert.ok(Array.isArray(((tk?.d as Json[])[0] ?? {}).qiv));
    c.ws.close();
  });

  test('bullish: markets, per-path topics, trade snapshot then updates, tick, index, keepalive pong', async () => {
    const x = sb.urls.bullish;
    assert.ok(x);
    const markets = (await (await fetch(`${x.rest}/trading-api/v1/markets`)).json()) as Json[];
    const opt = markets.find((m) => m.marketType === 'OPTION');
    assert.ok(opt && /T08:00:00.000Z$/.test(String(opt.expiryDatetime)) && markets.some((m) => m.marketType === 'SPOT'));
    const sub = (topic: string, params: Json, id: string): string =>
      JSON.stringify({ jsonrpc: '2.0', type: 'command', method: 'subscribe', params: { topic, ...params }, id });
    const tr = await client(x.ws.trades ?? '', [
      sub('anonymousTrades', { symbol: 'BTC-USDC-PERP' }, '1'),
      sub('tick', { symbol: 'BTC-USDC-PERP' }, '2'),
      '{"jsonrpc":"2.0","type":"command","method":"keepalivePing","params":{},"id":"3"}',
    ]);
    const ix = await client(x.ws.index ?? '', [sub('indexPrice', { assetSymbol: 'BTC' }, '4')]);
    await waitFor(
      () => tr.json().some((m) => m.id === '3') && tr.json().some((m) => m.type === 'snapshot') && ix.json().some((m) => m.id === '4'),
    );
    assert.ok(
      tr.json().some((m) => m.id === '2' && m.error !== undefined),
      'tick topic refused on the trades path',
    );
    assert.equal((tr.json().find((m) => m.id === '3')?.result as Json).message, 'Keep alive pong');
    sb.advance(30_000);
    await waitFor(
      () =>
        tr.json().some((m) => m.type === 'update' && m.dataType === 'V1TAAnonymousTradeUpdate') &&
        ix.json().some((m) => m.dataType === 'V1TAIndexPrice'),
    );
    const upd = tr.json().find((m) => m.type === 'update')?.data as { trades: Json[] };
    assert.match(String(upd.trades[0]?.createdAtTimestamp), /^\d{19}$/, 'perp trade times in ns');
    assert.equal(typeof upd.trades[0]?.isTaker, 'boolean');
    for (const c of [tr, ix]) c.ws.close();
  });

  test('paradex: markets, JSON-RPC acks, SBE binary trades, JSON markets_summary, server pings, unsupported SBE version refused', async () => {
    const x = sb.urls.paradex;
    assert.ok(x);
    const m = (await (await fetch(`${x.rest}/v1/markets`)).json()) as { results: Json[] };
    assert.ok(
      m.results.some((r) => r.asset_kind === 'OPTION' && Number(r.expiry_at) > 0) && m.results.some((r) => r.asset_kind === 'PERP_OPTION'),
    );
    const binary: Buffer[] = [];
    const c = await client(`${x.ws.main}?sbeSchemaId=1&sbeSchemaVersion=1`, [
      JSON.stringify({ jsonrpc: '2.0', method: 'subscribe', params: { channel: 'trades.BTC-USD-PERP' }, id: 1 }),
      JSON.stringify({ jsonrpc: '2.0', method: 'subscribe', params: { channel: 'markets_summary' }, id: 2 }),
      JSON.stringify({ jsonrpc: '2.0', method: 'subscribe', params: { channel: 'markets_summary' }, id: 3 }),
    ]);
    let pings = 0;
    c.ws.on('ping', () => pings++);
    c.ws.on('message', (d, isBinary) => {
      if (isBinary) binary.push(d as Buffer);
    });
    await waitFor(() => c.json().some((j) => j.id === 3));
    assert.equal((c.json().find((j) => j.id === 3)?.error as Json).message, 'already subscribed');
    sb.advance(3000);
    sb.faults.liquidations('paradex', 4);
    await waitFor(
      () => binary.length > 0 && c.json().some((j) => (j.params as Json | undefined)?.channel === 'markets_summary') && pings > 0,
    );
    const b = binary[0];
    assert.ok(b && b.readUInt16LE(2) === 1 && b.readUInt16LE(4) === 1, 'SBE TradeEvent, schema 1');
    assert.ok(
      binary.some((f) => f.readUInt8(8 + 49) === 2),
      'a LIQUIDATION fill',
    );
    c.ws.close();
    const bad = new WebSocket(`${x.ws.main}?sbeSchemaId=1&sbeSchemaVersion=9`);
    await new Promise<void>((res) => bad.once('error', () => res()));
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
