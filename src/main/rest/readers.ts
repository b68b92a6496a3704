// The readers' routes (README, "Read token"): the match records and the dead letters
// (events/rest-read.ts), read with an admin token (ADMIN_TOKEN) or a read token (EVENTS_READ_TOKEN),
// Bearer only. Registered when either is set; without both they answer the router's 404.
import { clientAddress } from '../base/client-address.js';
import type { Logger } from '../base/log.js';
import type { AdminTokens } from '../http/admin-tokens.js';
import type { Request, RouteOptions, Router } from '../http/router.js';
import { type EventOutput, registerEventsRead } from '../events/index.js';

const READER_REQUEST: RouteOptions = { headers: ['authorization', 'x-forwarded-for', 'x-real-ip'], remoteAddress: true };

export function registerReaders(router: Router, output: EventOutput, deps: { admin?: AdminTokens; read: AdminTokens; trustProxy: boolean; log: Logger }): void {
  if (!deps.admin?.enabled && !deps.read.enabled) return;
  const log = deps.log.child({ module: 'admin' });
  const client = (req: Request) => clientAddress(deps.trustProxy, req.remoteAddress, req.headers['x-forwarded-for'], req.headers['x-real-ip']);
  registerEventsRead(router, output, {
    authorize(req, reply) {
      const tokenId = deps.admin?.identify(req.headers.authorization) ?? deps.read.identify(req.headers.authorization);
      if (tokenId !== null) return tokenId;
      log.info({ path: req.path, method: req.method, client: client(req), presented: req.headers.authorization !== '' }, 'read request refused: no valid token');
      reply.send(401, 'application/json; charset=utf-8', JSON.stringify({ error: 'Unauthorized' }), { 'WWW-Authenticate': 'Bearer realm="overlay data service records"', 'Cache-Control': 'no-store' });
      return null;
    },
    decodeParam: (raw) => raw,
    client,
    options: READER_REQUEST,
    log,
  });
}
