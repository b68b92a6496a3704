// What every admin route group (rest/admin.ts, rehearsals.ts, standby.ts) is handed by rest/admin.ts:
// the Bearer check, the group-code parameter's decoding, the client for the action log, the request
// fields the routes read, and the one way they answer (JSON, never cached).
import type { Logger } from '../base/log.js';
import type { Reply, Request, RouteOptions } from './router.js';

export interface AdminRouteContext {
  /** The token id, or null after answering 401. */
  authorize(req: Request, reply: Reply): string | null;
  /** A group code from the path, or null when it is not one. */
  decodeParam(raw: string): string | null;
  /** The client's address for the log. */
  client(req: Request): string;
  options: RouteOptions;
  log: Logger;
}

export const NO_STORE = { 'Cache-Control': 'no-store' };

/** A JSON answer that no cache keeps (admin data and secrets). */
export function sendJson(reply: Reply, status: number, body: unknown): void {
  reply.send(status, 'application/json; charset=utf-8', JSON.stringify(body), NO_STORE);
}
