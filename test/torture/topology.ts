// The service set-ups the torture harness runs a match on (docs/reliability.md, "Torture harness"),
// each from the built entry as its own process (test/helpers/service-process.ts): one node with its
// state on disk (STATE_DIR, fixed ports, so that a restart is where it was), two nodes on one
// redis-server (test/helpers/cluster.ts), or two nodes on a Sentinel-watched primary and replica
// (test/helpers/redis-sentinel.ts). The observer reaches the nodes through a balancer
// (test/helpers/failover-proxy.ts) that sends it to node 0 while it lives and can move it.
import path from 'node:path';
import { startCluster, CLUSTER_KEY } from '../helpers/cluster.js';
import { FailoverProxy } from '../helpers/failover-proxy.js';
import { freePorts } from '../helpers/free-ports.js';
import { MASTER_NAME, type SentinelSetup, startSentinelSetup } from '../helpers/redis-sentinel.js';
import { spawnService, tempDir, type ServiceProcess } from '../helpers/service-process.js';
import type { RedisServer } from '../helpers/redis-server.js';

export type TopologyKind = 'embedded' | 'redis' | 'sentinel';
export const ADMIN = 'torture:torture-admin-token-3b9f0e71c2';
export const AUTH_KEY = CLUSTER_KEY;
/** A node's lease on its matches (REDIS_LEASE_TTL_MS): short, so that a lost node's match moves soon. */
export const LEASE_MS = 3000;

export interface Topology {
  kind: TopologyKind;
  /** Node id → its process (NODE_ID); a restarted node is a new id. */
  nodes: Map<string, ServiceProcess>;
  /** The node ids in the balancer's order. */
  order: string[];
  /** The observer's URL: the balancer. */
  ingest: string;
  proxy: FailoverProxy;
  redis?: RedisServer;
  sentinel?: SentinelSetup;
  /** The one node of `embedded` started again on its ports and state (a new NODE_ID). */
  restart(): Promise<ServiceProcess>;
  /** A node that answers, for the admin API. */
  rest(): Promise<string>;
  stop(): Promise<void>;
}

/** What every node runs with: the recorded clock, snapshots often, no budget in the way, no silence alarms. */
export function nodeEnv(webhookUrl: string, secret: string): Record<string, string> {
  return {
    AUTH_KEY, ADMIN_TOKEN: ADMIN, TRUST_REPLAY_TIMESTAMPS: 'true', SNAPSHOT_INTERVAL_MS: '200', METRICS_ENABLED: 'false',
    INGEST_RATE_PER_SOCKET: '1000000', INGEST_BURST_PER_SOCKET: '1000000', LOG_LEVEL: 'warn',
    OBSERVER_SILENT_MS: '3600000', WEBHOOKS: JSON.stringify([{ id: 'bracket', url: webhookUrl, secret }]),
  };
}

export async function startTopology(kind: TopologyKind, env: Record<string, string>): Promise<Topology> {
  const nodes = new Map<string, ServiceProcess>();
  const order: string[] = [];
  let redis: RedisServer | undefined;
  let sentinel: SentinelSetup | undefined;
  let restart: () => Promise<ServiceProcess> = () => Promise.reject(new Error(`no restart on ${kind}`));
  if (kind === 'embedded') {
    const ports = await freePorts(3);
    // One DATA_DIR across the restart too (the schedule, the webhook endpoints), as an operator's restart has.
    const home = tempDir('ods-torture-');
    const solo = { ...env, DATA_DIR: path.join(home, 'data'), STATE_DIR: path.join(home, 'state'), INGEST_PORT: String(ports[0]), REST_PORT: String(ports[1]), BROADCAST_PORT: String(ports[2]) };
    let n = 1;
    nodes.set('solo-1', await spawnService({ ...solo, NODE_ID: 'solo-1' }));
    order.push('solo-1');
    restart = async () => {
      const id = `solo-${++n}`;
      const node = await spawnService({ ...solo, NODE_ID: id });
      nodes.set(id, node);
      return node;
    };
  } else if (kind === 'redis') {
    const cluster = await startCluster(2, { ...env, REDIS_LEASE_TTL_MS: String(LEASE_MS) });
    redis = cluster.redis;
    cluster.nodes.forEach((node, i) => { nodes.set(`node-${'ab'[i]}`, node); order.push(`node-${'ab'[i]}`); });
  } else {
    sentinel = await startSentinelSetup();
    const base = {
      ...env, REDIS_URL: `redis://${MASTER_NAME}`, REDIS_SENTINELS: sentinel.sentinelList, REDIS_SENTINEL_NAME: MASTER_NAME,
      REDIS_LEASE_TTL_MS: String(LEASE_MS), REDIS_PROBE_INTERVAL_MS: '500',
    };
    for (const id of ['node-a', 'node-b']) {
      nodes.set(id, await spawnService({ ...base, NODE_ID: id }));
      order.push(id);
    }
  }
  const proxy = new FailoverProxy(order.map((id) => nodes.get(id)!.ports.ingest));
  // The single node's restart keeps its ports: the balancer's one target stays right.
  const ingest = await proxy.start();
  const live = (n: ServiceProcess) => n.proc.exitCode === null && n.proc.signalCode === null;
  return {
    kind, nodes, order, ingest, proxy, redis, sentinel, restart,
    async rest() {
      for (const node of [...nodes.values()].reverse()) {
        if (!live(node)) continue;
        const ok = await fetch(`${node.urls.rest}/status`, { signal: AbortSignal.timeout(3000) }).then((r) => r.ok, () => false);
        if (ok) return node.urls.rest;
      }
      throw new Error('no node answers');
    },
    async stop() {
      await proxy.close().catch(() => undefined);
      for (const node of nodes.values()) {
        if (live(node)) node.proc.kill('SIGCONT');
        await node.stop('SIGKILL');
      }
      await redis?.stop();
      await sentinel?.stop();
    },
  };
}
