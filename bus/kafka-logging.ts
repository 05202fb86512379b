import './kafkajs-grouping-fix.ts'; // before kafkajs: see the module
import { logLevel, type logCreator } from 'kafkajs';
import type { Logger } from '#platform/log.ts';

/**
 * kafkajs log lines through pino. kafkajs is created with logLevel WARN, so only WARN and ERROR arrive here.
 * Demoted, because the caller retries or handles them and real failures surface as exceptions:
 * - per-request error responses of the Connection layer ("Response Heartbeat ... group is rebalancing",
 *   "Response CreateTopics ... Topic creation errors" for a topic that exists) -> DEBUG;
 * - routine group-membership churn (rebalance, re-join, coordinator loading) -> INFO;
 * - the bounded-retries notice of the idempotent producer (a deliberate choice, see kafka-bus.ts) -> DEBUG.
 */
const ROUTINE = [/rebalancing/i, /not aware of this member/i, /coordinator is loading/i, /coordinator is not available/i];
const CHOSEN = [/Limiting retries for the idempotent producer/];

export function pinoLogCreator(log: Logger): logCreator {
  return () =>
    ({ namespace, level, log: entry }) => {
      const {
        message,
        timestamp: _ts,
        logger: _logger,
        ...extra
      } = entry as { message: string; timestamp?: string; logger?: string } & Record<string, unknown>;
      const fields = { kafkajs: namespace, ...extra };
      const text = `${message} ${typeof extra.error === 'string' ? extra.error : ''}`;
      if (CHOSEN.some((re) => re.test(text)) || (namespace === 'Connection' && message.startsWith('Response '))) {
        log.debug(fields, message);
      } else if (ROUTINE.some((re) => re.test(text))) log.info(fields, message);
      else if (level === logLevel.ERROR) log.error(fields, message);
      else log.warn(fields, message);
    };
}
