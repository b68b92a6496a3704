// Starts the real, built service (dist/, built by `npm test`'s pretest; vitest.config.ts maps the
// `../src` imports below to it) in this process on ephemeral loopback ports, with a log capture,
// and gives the test what a client or an operator has: the URLs, the log lines, /metrics, the
// admin API, the files in DATA_DIR / STATE_DIR. Not the service object: tests talk to the service
// through its public surfaces only. For the entry as its own process: ./service-process.ts.
import { afterAll, beforeAll } from 'vitest';
import path from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/main/base/config.js';
import { createLogger } from '../../src/main/base/log.js';
import { startService } from '../../src/main/service.js';
import { AdminApi, TEST_ADMIN_TOKEN } from './admin.js';
import { closeAll } from './clients.js';
import { scrapeMetrics, type Metrics } from './metrics.js';
import { testEnv, tempDir, type ServicePorts } from './service-process.js';
import { freePorts } from './free-ports.js';

export { freePorts, tempDir };


/**
 * A service to be restarted with its state: a new STATE_DIR, fixed free ports (freePorts), the
 * recorded clock (replays give the same frames at any speed) and snapshots every 200 ms.
 */
export async function restartableEnv(authKey: string): Promise<{ env: Record<string, string>; stateDir: string }> {
  const stateDir = path.join(tempDir(), 'state');
  const [ingestPort, restPort, broadcastPort] = await freePorts(3);
  const env = {
    AUTH_KEY: authKey, TRUST_REPLAY_TIMESTAMPS: 'true', STATE_DIR: stateDir, SNAPSHOT_INTERVAL_MS: '200',
    INGEST_PORT: String(ingestPort), REST_PORT: String(restPort), BROADCAST_PORT: String(broadcastPort),
  };
  return { env, stateDir };
}

export interface TestService {
  ingest: string;
  rest: string;
  broadcast: string;
  /** http://127.0.0.1:<METRICS_PORT>, null with METRICS_ENABLED=false. */
  metricsUrl: string | null;
  ports: ServicePorts;
  /** Every log line the service wrote, as raw JSON text. */
  logs: string[];
  dataDir: string;
  /** The admin API with the token the service was started with (TEST_ADMIN_TOKEN unless the test set ADMIN_TOKEN). */
  admin: AdminApi;
  /** GET /metrics, parsed. */
  metrics(): Promise<Metrics>;
  /** One value of GET /metrics: the sum of the samples of `name` whose labels include `labels`. */
  metric(name: string, labels?: Record<string, string>): Promise<number>;
  /**
   * The number of the live match's latest frame (GET /admin/matches, `frameNo`), -1 when there is no
   * such live match: an overlay that watched from the start holds every frame once it holds this many.
   */
  frameNo(groupCode: string): Promise<number>;
  /** The log lines, parsed, that have every given field value. */
  logged(fields: Record<string, unknown>): Record<string, unknown>[];
  /**
   * FAULT_INJECTION=true only: the shard thread dies with an uncaught exception (its matches are
   * rebuilt, README "Restarts, crashes and shutdown"). The fault-injection path has no socket or
   * HTTP trigger; this is the one place the tests call into the service object.
   */
  crashShard(shard: number): void;
  /** Immediate stop: listeners and sockets closed, shards stopped; nothing persisted or completed. */
  close(): Promise<void>;
  /** The graceful stop SIGTERM runs (README, "Restarts, crashes and shutdown"). */
  shutdown(): Promise<void>;
}

/** Services started in this process and not yet closed (test/setup/file-leftovers.ts closes them after each file). */
const open = new Set<{ close(): Promise<void> }>();

/** Closes what a test file left open; resolves to how many there were. */
export async function closeLeftoverServices(): Promise<number> {
  const left = [...open];
  open.clear();
  await Promise.allSettled(left.map((s) => s.close()));
  return left.length;
}

export async function startTestService(env: Record<string, string> = {}, options: { testHooks?: boolean } = {}): Promise<TestService> {
  const merged: Record<string, string> = {
    ...testEnv(),
    LOG_LEVEL: 'debug',
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    // Tests replay the recorded match as fast as the socket takes it: far above the per-socket
    // budget (200 msg/s). The reliability tests set the real budget where they test it.
    INGEST_RATE_PER_SOCKET: '1000000',
    INGEST_BURST_PER_SOCKET: '1000000',
    ...env,
  };
  const config = loadConfig(merged);
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  });
  // The service's own logger factory, so its redaction rules are what the tests see.
  const service = await startService(config, { logger: createLogger(config, sink), testHooks: options.testHooks ?? true });
  open.add(service);
  const scheme = config.INSECURE ? 'http' : 'https';
  const { ports } = service;
  const rest = `${scheme}://127.0.0.1:${ports.rest}`;
  const metricsUrl = ports.metrics === null ? null : `http://127.0.0.1:${ports.metrics}`;
  const adminToken = (merged.ADMIN_TOKEN ?? '').split(',')[0].trim();
  const admin = new AdminApi(rest, adminToken.slice(adminToken.indexOf(':') + 1));
  const metrics = () => {
    if (metricsUrl === null) throw new Error('METRICS_ENABLED=false: no /metrics');
    return scrapeMetrics(metricsUrl);
  };
  return {
    ingest: `${scheme}://127.0.0.1:${ports.ingest}`,
    rest,
    broadcast: `${scheme}://127.0.0.1:${ports.broadcast}`,
    metricsUrl,
    ports: { ...ports },
    logs,
    dataDir: config.DATA_DIR,
    admin,
    metrics,
    metric: async (name, labels = {}) => (await metrics()).value(name, labels),
    frameNo: async (groupCode) => (await admin.match(groupCode))?.frameNo ?? -1,
    logged: (fields) => logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((j) => Object.entries(fields).every(([k, v]) => j[k] === v)),
    crashShard: (shard) => {
      if (!config.FAULT_INJECTION) throw new Error('crashShard needs FAULT_INJECTION=true');
      service.matches.pool.injectCrash(shard);
    },
    close: () => { open.delete(service); return service.close(); },
    shutdown: () => { open.delete(service); return service.shutdown(); },
  };
}

/**
 * A test file's one service: started before its tests, closed (with every client the helpers
 * opened) after them. Returns a stand-in that forwards to the started service, so the tests read
 * `svc.ingest`, `svc.metric(…)` as with startTestService.
 */
export function serviceForFile(env: Record<string, string> = {}): TestService {
  let started: TestService | undefined;
  beforeAll(async () => { started = await startTestService(env); });
  afterAll(async () => {
    closeAll();
    await started?.close();
  });
  return new Proxy({} as TestService, {
    get(_target, key) {
      if (!started) throw new Error('the file\'s service starts in beforeAll');
      const value: unknown = Reflect.get(started, key);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(started) : value;
    },
  });
}
