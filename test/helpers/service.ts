// Starts the real, built service (dist/, built by `npm test`'s pretest) in this process on
// ephemeral loopback ports, with a log capture, and gives the test its URLs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type * as ServiceModule from '../../src/main/service.js';
import type * as ConfigModule from '../../src/main/config.js';

const serviceModule = (await import('../../dist/main/service.js')) as unknown as typeof ServiceModule;
const configModule = (await import('../../dist/main/config.js')) as unknown as typeof ConfigModule;

export type Service = ServiceModule.Service;

export interface TestService {
  service: Service;
  rest: string;
  ingest: string;
  broadcast: string;
  /** Every log line the service wrote, as raw JSON text. */
  logs: string[];
  dataDir: string;
  close(): Promise<void>;
}

export function tempDir(prefix = 'ods-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export async function startTestService(env: Record<string, string> = {}, options: { testHooks?: boolean } = {}): Promise<TestService> {
  const dataDir = env.DATA_DIR ?? tempDir();
  const config = configModule.loadConfig({
    INSECURE: 'true',
    HOST: '127.0.0.1',
    INGEST_PORT: '0',
    REST_PORT: '0',
    BROADCAST_PORT: '0',
    LOG_LEVEL: 'debug',
    DATA_DIR: dataDir,
    SHARD_WORKERS: '1',
    METRICS_PORT: '0',
    // Tests replay the recorded match as fast as the socket takes it: far above the per-socket
    // budget (200 msg/s). The reliability tests set the real budget where they test it.
    INGEST_RATE_PER_SOCKET: '1000000',
    INGEST_BURST_PER_SOCKET: '1000000',
    ...env,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  });
  // The service's own logger factory, so its redaction rules are what the tests see.
  const { createLogger } = (await import('../../dist/main/log.js')) as unknown as typeof import('../../src/main/log.js');
  const service = await serviceModule.startService(config, { logger: createLogger(config, sink), testHooks: options.testHooks ?? true });
  const scheme = config.INSECURE ? 'http' : 'https';
  return {
    service,
    rest: `${scheme}://127.0.0.1:${service.ports.rest}`,
    ingest: `${scheme}://127.0.0.1:${service.ports.ingest}`,
    broadcast: `${scheme}://127.0.0.1:${service.ports.broadcast}`,
    logs,
    dataDir,
    close: () => service.close(),
  };
}
