// GET /status: { status: 'UP', matchesRunning } (docs/interface.md). With REDIS_URL, matchesRunning
// counts every node's live matches (the shared directory), and two fields are added: `node` (this
// node's id) and `redis` ('up' or 'unreachable'; the node keeps serving what it runs either way).
import type { Router } from '../http/router.js';

export interface ClusterStatus {
  nodeId: string;
  redisUp(): boolean;
}

export function registerStatus(router: Router, matchesRunning: () => number, cluster?: ClusterStatus): void {
  router.get('/status', (_req, reply) => {
    if (!cluster) return reply.json(200, { status: 'UP', matchesRunning: matchesRunning() });
    reply.json(200, { status: 'UP', matchesRunning: matchesRunning(), node: cluster.nodeId, redis: cluster.redisUp() ? 'up' : 'unreachable' });
  });
}
