// GET /getSupportPackages (only when USE_BACKEND=true; docs/interface.md 4.6).
import type { SupportPackages } from './store.js';
import type { Router } from '../http/router.js';

export function registerSupport(router: Router, packages: SupportPackages): void {
  router.get('/getSupportPackages', async (_req, reply) => {
    const result = await packages.get();
    if (result.ok) reply.rawJson(200, result.json);
    else if (result.kind === 'upstream') reply.error(502, 'Failed to fetch packages');
    else reply.error(500, 'Internal server error');
  });
}
