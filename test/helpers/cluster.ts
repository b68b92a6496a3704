// Several service processes on one real redis-server (the scale-out tests and bench:cluster): each
// node is the built entry (`node dist/main/index.js`) with REDIS_URL, its own ports and NODE_ID.
// A plain module: no vitest, so tsx runs it too.
import { startRedisServer, type RedisServer } from './redis-server.js';
import { spawnService, type ServiceProcess, type SpawnOptions } from './service-process.js';

export const CLUSTER_KEY = 'CLUSTER-TEST-KEY';

export interface Cluster {
  redis: RedisServer;
  nodes: ServiceProcess[];
  /** Starts one more node (same Redis, same settings plus `env`). */
  addNode(env?: Record<string, string>): Promise<ServiceProcess>;
  stop(): Promise<void>;
}

/**
 * `count` nodes named node-a, node-b, … on a fresh redis-server. Short leases (3 s) so that a
 * killed node's matches are taken over quickly; `env` adds to or overrides every node's settings.
 */
export async function startCluster(count: number, env: Record<string, string> = {}, options: SpawnOptions = {}): Promise<Cluster> {
  const redis = await startRedisServer();
  const nodes: ServiceProcess[] = [];
  const base = {
    REDIS_URL: redis.url,
    AUTH_KEY: CLUSTER_KEY,
    REDIS_LEASE_TTL_MS: '3000',
    REDIS_PROBE_INTERVAL_MS: '500',
    LOG_LEVEL: 'info',
    ...env,
  };
  const addNode = async (extra: Record<string, string> = {}) => {
    const node = await spawnService({ ...base, NODE_ID: `node-${String.fromCharCode(97 + nodes.length)}`, ...extra }, options);
    nodes.push(node);
    return node;
  };
  try {
    for (let i = 0; i < count; i++) await addNode();
  } catch (err) {
    await Promise.all(nodes.map((n) => n.stop('SIGKILL')));
    await redis.stop();
    throw err;
  }
  return {
    redis, nodes, addNode,
    async stop() {
      await Promise.all(nodes.map((n) => n.stop('SIGKILL')));
      await redis.stop();
    },
  };
}

/** The parsed JSON log lines of a node with this `msg`. */
export function logLines(node: ServiceProcess, msg: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of node.out) {
    if (!line.startsWith('{') || !line.includes(msg)) continue;
    try {
      const j = JSON.parse(line) as Record<string, unknown>;
      if (j.msg === msg) out.push(j);
    } catch { /* not JSON */ }
  }
  return out;
}
