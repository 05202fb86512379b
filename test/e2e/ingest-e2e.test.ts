import { test } from 'node:test';
import { MemoryBus } from '#bus/memory-bus.ts';
import { assertScenario, runIngestScenario } from './ingest-scenario.ts';

test(
  'sandbox -> real connectors -> in-process bus -> raw writer -> chDB: nothing lost or doubled under faults',
  { timeout: 150_000 },
  async () => {
    const r = await runIngestScenario(() => new MemoryBus({ clientId: 'e2e' }));
    console.log(
      JSON.stringify({
        seconds: r.seconds,
        malformedSent: r.malformedSent,
        closes: r.closes,
        stales: r.stales,
        counts: r.counts,
        recoveredByGapFill: Object.fromEntries(
          Object.entries(r.diffs)
            .filter(([, d]) => d.recovered.length > 0)
            .map(([k, d]) => [k, d.recovered.length]),
        ),
      }),
    );
    assertScenario(r);
  },
);
