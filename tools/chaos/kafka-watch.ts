/** Kafka facts the scenarios wait on: members of a consumer group, and messages not yet committed by it. */
import { Kafka, logLevel, type Admin } from 'kafkajs';

export const RAW_WRITER_GROUP = 'raw-writer';
export const OPTION_TRADES_TOPIC = 'md.option_trades.v1';

export class KafkaWatch {
  readonly #admin: Admin;
  #connected = false;

  constructor(brokers: readonly string[]) {
    this.#admin = new Kafka({ brokers: [...brokers], clientId: 'chaos-watch', logLevel: logLevel.NOTHING, retry: { retries: 2 } }).admin();
  }

  async #conn(): Promise<Admin> {
    if (!this.#connected) {
      await this.#admin.connect();
      this.#connected = true;
    }
    return this.#admin;
  }

  /** Runs `f`; on an error (broker away) the next call reconnects. */
  async #with<T>(f: (admin: Admin) => Promise<T>): Promise<T> {
    try {
      return await f(await this.#conn());
    } catch (err) {
      await this.close().catch(() => undefined);
      throw err;
    }
  }

  /** Processes (client ids: KAFKA_CLIENT_ID) with a member of the group that holds at least one partition. */
  members(groupId = RAW_WRITER_GROUP): Promise<number> {
    return this.#with((admin) => membersOf(admin, groupId));
  }

  /** The group's state as the coordinator reports it (Stable, PreparingRebalance, CompletingRebalance, Empty, Dead). */
  groupState(groupId = RAW_WRITER_GROUP): Promise<string> {
    return this.#with(async (admin) => (await admin.describeGroups([groupId])).groups[0]?.state ?? 'Unknown');
  }

  /** Messages of `topics` (default: the option trades topic) not yet committed by the group. */
  pending(topics: readonly string[] = [OPTION_TRADES_TOPIC], groupId = RAW_WRITER_GROUP): Promise<number> {
    return this.#with((admin) => pendingOf(admin, groupId, topics));
  }

  async close(): Promise<void> {
    const was = this.#connected;
    this.#connected = false;
    if (was) await this.#admin.disconnect();
  }
}

async function membersOf(admin: Admin, groupId: string): Promise<number> {
  const { groups } = await admin.describeGroups([groupId]);
  const g = groups[0];
  if (!g || g.state !== 'Stable') return 0;
  // A process runs several members of the group (one consumer per subscription); its client id names it.
  return new Set(g.members.filter((m) => m.memberAssignment.length > 0).map((m) => m.clientId)).size;
}

/** Messages published to `topics` and not yet committed by the group. */
async function pendingOf(admin: Admin, groupId: string, topics: readonly string[]): Promise<number> {
  let n = 0;
  const committed = await admin.fetchOffsets({ groupId, topics: [...topics] });
  for (const t of committed) {
    const ends = await admin.fetchTopicOffsets(t.topic);
    for (const p of t.partitions) {
      const end = Number(ends.find((e) => e.partition === p.partition)?.high ?? 0);
      n += Math.max(0, end - Math.max(0, Number(p.offset)));
    }
  }
  return n;
}
