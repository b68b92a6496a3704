// GET /status: { status: 'UP', matchesRunning }.
import type { Router } from './http.js';

export function registerStatus(router: Router, matchesRunning: () => number): void {
  router.get('/status', (_req, reply) => {
    reply.json(200, { status: 'UP', matchesRunning: matchesRunning() });
  });
}
