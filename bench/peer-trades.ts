/**
 * The peer library's trade normalizers (tardis-dev `normalizeTrades`) as frame-string functions, for the parser
 * bench only: JSON.parse of the frame, then every normalized trade of the peer mapper consumed.
 */
import { normalizeTrades } from 'tardis-dev';

/** tardis-dev exchange ids whose trade mappers the bench compares against. */
export type PeerExchange =
  'deribit' | 'okex' | 'okex-swap' | 'okex-options' | 'bybit' | 'bybit-options' | 'binance-european-options' | 'binance-futures';

/** Parses one frame with the peer: the number of trades it yields, or undefined when its mapper does not handle the frame. */
export type PeerParse = (frame: string) => number | undefined;

export function peerTradeParser(exchange: PeerExchange): PeerParse {
  const localTimestamp = new Date();
  const mapper = normalizeTrades(exchange, localTimestamp);
  return (frame) => {
    const message = JSON.parse(frame) as unknown;
    if (!mapper.canHandle(message)) return undefined;
    const trades = mapper.map(message, localTimestamp);
    if (trades === undefined) return undefined;
    let n = 0;
    for (const t of trades) if (t.price > 0) n++;
    return n;
  };
}
