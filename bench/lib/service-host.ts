// Runs the built service in its own process for a benchmark and answers the parent over IPC:
// 'ready' with the ports, then on request its event-loop delay, RSS and CPU (all threads).
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type * as ServiceModule from '../../src/main/service.js';
import type * as ConfigModule from '../../src/main/config.js';
import type * as LogModule from '../../src/main/log.js';

const { startService } = (await import('../../dist/main/service.js')) as unknown as typeof ServiceModule;
const { loadConfig } = (await import('../../dist/main/config.js')) as unknown as typeof ConfigModule;
const { createLogger } = (await import('../../dist/main/log.js')) as unknown as typeof LogModule;

const config = loadConfig(process.env);
const service = await startService(config, { logger: createLogger({ LOG_LEVEL: config.LOG_LEVEL, LOG_FORMAT: 'json' }) });
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();

process.on('message', (msg: { t: string }) => {
  if (msg.t === 'stats') {
    const counters = service.broadcast.counters;
    process.send!({
      t: 'stats',
      loop: { p50: loop.percentile(50) / 1e6, p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 },
      rss: process.memoryUsage.rss(),
      cpu: process.cpuUsage(),
      matches: service.shared.directory.count(),
      broadcast: { ...counters },
      framesPublished: service.matches.output.counters.framesPublished,
    });
    loop.reset();
  } else if (msg.t === 'stop') {
    void service.close().then(() => process.exit(0));
  }
});
process.send!({ t: 'ready', ports: service.ports });
