// GET /getOrgForKey?key= (docs/interface.md 4.4): KEYS_FILE, then the backend; no AUTH_KEY shortcuts.
import type { KeyValidator } from './key-validation.js';
import { queryParam, type Router } from '../http/router.js';

export function registerOrg(router: Router, keys: KeyValidator): void {
  router.get('/getOrgForKey', async (req, reply) => {
    const key = queryParam(req, 'key');
    if (!key) return reply.error(400, 'Key is required');
    const validity = await keys.orgLookup(key);
    if (validity.valid) {
      reply.json(200, { id: validity.organizationId, name: validity.organizationName, isSupporter: validity.isSupporter ?? false });
    } else {
      reply.text(401, '401 Unauthorized');
    }
  });
}
