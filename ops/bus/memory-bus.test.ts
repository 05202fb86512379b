import { runBusContract } from './bus-contract.ts';
import { MemoryBus } from './memory-bus.ts';

runBusContract('memory', () => new MemoryBus({ clientId: 'contract', retryBackoffMs: 20 }));
