// Entry point: read .env when present, validate the environment, start, print the banner,
// and stop cleanly on SIGTERM/SIGINT.
import fs from 'node:fs';
import { ConfigError, loadConfig } from './base/config.js';
import { banner, startService } from './service.js';

async function main(): Promise<void> {
  if (fs.existsSync('.env')) process.loadEnvFile('.env');
  let config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`configuration error: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  let service;
  try {
    service = await startService(config);
  } catch (err) {
    process.stderr.write(`start failed: ${(err as Error).message}\n`);
    process.exit(1);
  }
  process.stdout.write(banner(service) + '\n');
  // A promise rejected with nobody to handle it (a library's internal call as its connection
  // drops, e.g. the Redis client's during an outage) is logged, not the end of every live match.
  process.on('unhandledRejection', (reason) => {
    service.log.error({ module: 'service', error: reason instanceof Error ? reason.message : String(reason) }, 'unhandled promise rejection (kept running)');
  });
  const stop = (signal: string) => {
    service.log.info({ module: 'service', signal, timeoutMs: config.SHUTDOWN_TIMEOUT_MS, stateDir: config.STATE_DIR !== '' }, 'shutting down');
    // Bounded: whatever is still pending after SHUTDOWN_TIMEOUT_MS is abandoned.
    const force = setTimeout(() => {
      process.stderr.write(`shutdown did not finish within ${config.SHUTDOWN_TIMEOUT_MS} ms; exiting\n`);
      process.exit(1);
    }, config.SHUTDOWN_TIMEOUT_MS);
    force.unref();
    const exit = (code: number) => {
      service.log.flush?.();
      setTimeout(() => process.exit(code), 50);
    };
    service.shutdown().then(() => exit(0), (err: Error) => {
      process.stderr.write(`shutdown failed: ${err.message}\n`);
      exit(1);
    });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

void main();
