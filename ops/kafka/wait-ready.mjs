// Readiness probe used by start.sh: a real metadata round trip (kafkajs admin describeCluster) against the
// broker listener. Exit 0 when the broker answers with itself as a live broker and an active controller.
// Usage: node ops/kafka/wait-ready.mjs 127.0.0.1:9092
import kafkajs from 'kafkajs';

const { Kafka, logLevel } = kafkajs;
const broker = process.argv[2] ?? '127.0.0.1:9092';
const kafka = new Kafka({
  clientId: 'gex-kafka-ready',
  brokers: [broker],
  logLevel: logLevel.NOTHING,
  connectionTimeout: 1000,
  requestTimeout: 3000,
  retry: { retries: 0 },
});
const admin = kafka.admin();
try {
  await admin.connect();
  const cluster = await admin.describeCluster();
  await admin.listTopics();
  const ok = cluster.brokers.length > 0 && cluster.controller !== null && cluster.controller !== undefined;
  await admin.disconnect();
  process.exit(ok ? 0 : 1);
} catch {
  try {
    await admin.disconnect();
  } catch {
    /* probe only */
  }
  process.exit(1);
}
