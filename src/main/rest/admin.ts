// Operator routes (ADMIN_TOKEN; a read token of EVENTS_READ_TOKEN is refused with 403, rest/readers.ts
// has what it reads): the dashboard page and its event stream, the dashboard's data as
// JSON, force-end and secret rotation. Registered only when ADMIN_TOKEN is set, so without it they
// answer the router's 404 like any unknown path. Every action is logged with the token's id.
//
//   GET  /dashboard                          the page (Bearer, or HTTP Basic with the token as password)
//   GET  /dashboard/events                   server-sent events: 'full' then 'diff' at most once a second
//   GET  /admin/matches                      { serverTime, matches, totals, history } (Bearer)
//   POST /admin/matches/:groupCode/end       force-end (Bearer)
//   POST /admin/matches/:groupCode/secret    new group secret, returned once (Bearer)
//   /admin/rehearsals…                       rehearsals (Bearer; rehearsal/rest.ts)
//   POST /admin/matches/:groupCode/standby   a standby observer: arm, swap (Bearer; standby/rest.ts)
//   POST /admin/matches/:groupCode/failover
//   /admin/fixtures…                         the schedule (schedule/rest.ts)
//   /admin/brackets…                         linked brackets (brackets/rest.ts)
//   /admin/delays, /admin/matches/:groupCode/delay   the output delay (output-delay/rest.ts)
//
// The state-changing routes take Bearer only: a browser sends cached Basic credentials with
// cross-site form posts, but a cross-site page cannot set an Authorization header it does not know.
import type { Dashboard } from '../admin/dashboard.js';
import type { AdminTokens } from '../http/admin-tokens.js';
import { DASHBOARD_HTML } from '../admin/dashboard-page.js';
import { clientAddress } from '../base/client-address.js';
import { DASHBOARD_RECONNECT_MS, MAX_GROUP_CODE_LENGTH } from '../base/limits.js';
import type { Logger } from '../base/log.js';
import type { MatchDirectory, MatchLifecycle } from '../matches/index.js';
import type { Reply, Request, RouteOptions, Router } from '../http/router.js';
import { NO_STORE } from '../http/admin-context.js';
import { type EventOutput, registerEventsAdmin } from '../events/index.js';
import { type OutputDelays, registerDelays } from '../output-delay/index.js';
import { registerRehearsals, type RehearsalRouteDeps } from '../rehearsal/index.js';
import { registerStandby, type StandbyRouteDeps } from '../standby/index.js';
import { registerFixtures, type FixtureRouteDeps } from '../schedule/index.js';
import { registerBrackets, type Brackets } from '../brackets/index.js';

export interface AdminRouteDeps {
  tokens: AdminTokens;
  /** EVENTS_READ_TOKEN: refused here with 403 (it reads the records, dead letters and GET /events only: rest/readers.ts). */
  readTokens: AdminTokens;
  dashboard: Dashboard;
  directory: MatchDirectory;
  lifecycle: MatchLifecycle;
  trustProxy: boolean;
  log: Logger;
  rehearsal: RehearsalRouteDeps;
  /** The standby observer's routes (standby/rest.ts). */
  standby?: StandbyRouteDeps;
  /** The schedule's routes (schedule/rest.ts). */
  fixtures?: FixtureRouteDeps;
  /** The linked brackets' routes (brackets/rest.ts). */
  brackets?: Brackets;
  /** Webhook endpoints and match records (events/rest-admin.ts); null with EVENTS_ENABLED=false. */
  eventOutput: EventOutput | null;
  /** The per-match output delays (output-delay/rest.ts). */
  delays?: OutputDelays;
}


function decodeParam(raw: string): string | null {
  try {
    const value = decodeURIComponent(raw);
    return value.length > 0 && value.length <= MAX_GROUP_CODE_LENGTH ? value : null;
  } catch {
    return null;
  }
}

/** What every admin route reads of the request: the token, and the client for the log. */
const ADMIN_REQUEST: RouteOptions = { headers: ['authorization', 'x-forwarded-for', 'x-real-ip'], remoteAddress: true };

export function registerAdmin(router: Router, deps: AdminRouteDeps): void {
  const log = deps.log.child({ module: 'admin' });
  const client = (req: Request) => clientAddress(deps.trustProxy, req.remoteAddress, req.headers['x-forwarded-for'], req.headers['x-real-ip']);

  /** The token id, or null after answering 401 (with the challenge a browser or an API client expects). */
  function authorize(req: Request, reply: Reply, basic: boolean): string | null {
    const tokenId = deps.tokens.identify(req.headers.authorization, { basic });
    if (tokenId !== null) return tokenId;
    const readerId = deps.readTokens.identify(req.headers.authorization, { basic });
    if (readerId !== null) {
      log.info({ tokenId: readerId, path: req.path, method: req.method, client: client(req) }, 'admin request refused: a read token');
      reply.send(403, 'application/json; charset=utf-8', JSON.stringify({ error: 'A read token (EVENTS_READ_TOKEN) reads the match records, the dead letters and GET /events only' }), NO_STORE);
      return null;
    }
    log.info({ path: req.path, method: req.method, client: client(req), presented: req.headers.authorization !== '' }, 'admin request refused: no valid token');
    const challenge = basic ? 'Basic realm="overlay data service dashboard", charset="UTF-8"' : 'Bearer realm="overlay data service admin"';
    reply.send(401, 'application/json; charset=utf-8', JSON.stringify({ error: 'Unauthorized' }), { 'WWW-Authenticate': challenge });
    return null;
  }

  router.get('/dashboard', (req, reply) => {
    const tokenId = authorize(req, reply, true);
    if (tokenId === null) return;
    log.info({ tokenId, action: 'dashboard_open', client: client(req) }, 'admin: dashboard opened');
    reply.html(200, DASHBOARD_HTML, {
      ...NO_STORE,
      // Everything the page needs is inline; nothing may load from elsewhere.
      'Content-Security-Policy': "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    });
  }, ADMIN_REQUEST);

  router.get('/dashboard/events', (req, reply) => {
    const tokenId = authorize(req, reply, true);
    if (tokenId === null) return;
    if (deps.dashboard.full) return reply.error(503, 'Too many open dashboards');
    const stream = reply.stream(200, 'text/event-stream; charset=utf-8', { ...NO_STORE, 'X-Accel-Buffering': 'no' }, `retry: ${DASHBOARD_RECONNECT_MS}\n\n`);
    if (!deps.dashboard.attach(stream)) stream.end();
    log.debug({ tokenId, client: client(req) }, 'admin: dashboard event stream opened');
  }, ADMIN_REQUEST);

  router.get('/admin/matches', async (req, reply) => {
    const tokenId = authorize(req, reply, false);
    if (tokenId === null) return;
    log.debug({ tokenId, action: 'list_matches', client: client(req) }, 'admin: matches listed');
    const snapshot = await deps.dashboard.currentSnapshot();
    reply.send(200, 'application/json; charset=utf-8', JSON.stringify(snapshot), NO_STORE);
  }, ADMIN_REQUEST);

  router.post('/admin/matches/:groupCode/end', async (req, reply) => {
    const tokenId = authorize(req, reply, false);
    if (tokenId === null) return;
    const groupCode = decodeParam(req.params[0]);
    const match = groupCode === null ? undefined : deps.directory.get(groupCode);
    if (groupCode === null || !match) {
      log.info({ tokenId, action: 'force_end', groupCode, client: client(req), result: 'not_found' }, 'admin action: force-end of an unknown match');
      return reply.error(404, 'Match not found');
    }
    log.info({ tokenId, action: 'force_end', groupCode, matchId: match.matchId, client: client(req) }, 'admin action: force-end');
    const removed = await deps.lifecycle.forceEnd(groupCode);
    if (!removed) {
      log.error({ tokenId, action: 'force_end', groupCode }, 'admin action: force-end not confirmed by the shard');
      return reply.error(500, 'The match was not removed in time');
    }
    reply.send(200, 'application/json; charset=utf-8', JSON.stringify({ groupCode, ended: true }), NO_STORE);
  }, ADMIN_REQUEST);

  router.post('/admin/matches/:groupCode/secret', async (req, reply) => {
    const tokenId = authorize(req, reply, false);
    if (tokenId === null) return;
    const groupCode = decodeParam(req.params[0]);
    // The old secret no longer matches; the sessions that used it end and their sockets close.
    const rotated = groupCode === null ? undefined : await deps.lifecycle.rotateSecret(groupCode);
    if (groupCode === null || rotated === undefined) {
      log.info({ tokenId, action: 'rotate_secret', groupCode, client: client(req), result: 'not_found' }, 'admin action: secret rotation of an unknown match');
      return reply.error(404, 'Match not found');
    }
    const { secret, closedSessions } = rotated;
    log.info({ tokenId, action: 'rotate_secret', groupCode, closedSessions, client: client(req) }, 'admin action: group secret rotated');
    reply.send(200, 'application/json; charset=utf-8', JSON.stringify({ groupCode, groupSecret: secret, closedSessions }), NO_STORE);
  }, ADMIN_REQUEST);

  registerRehearsals(router, deps.rehearsal, { authorize: (req, reply) => authorize(req, reply, false), decodeParam, client, options: ADMIN_REQUEST, log });
  if (deps.fixtures) registerFixtures(router, deps.fixtures, { authorize: (req, reply) => authorize(req, reply, false), authorizeRead: (req, reply) => authorize(req, reply, true), decodeParam, client, options: ADMIN_REQUEST, log });
  if (deps.brackets) registerBrackets(router, deps.brackets, { authorize: (req, reply) => authorize(req, reply, false), authorizeRead: (req, reply) => authorize(req, reply, true), decodeParam, client, options: ADMIN_REQUEST, log });
  // The dashboard's Webhooks panel reads this with the page's own credentials (Basic, like /dashboard/events).
  const out = deps.eventOutput;
  if (out) router.get('/dashboard/webhooks', async (req, reply) => {
    if (authorize(req, reply, true) === null) return;
    // Every node's dead letters with REDIS_URL; none shown (and a warning) when Redis does not answer.
    const deadLetters = await out.deadLetters().catch((err: Error) => { log.warn({ error: err.message }, 'dead letters unreadable'); return []; });
    reply.send(200, 'application/json; charset=utf-8', JSON.stringify({ endpoints: out.endpoints(), deadLetters }), NO_STORE);
  }, ADMIN_REQUEST);
  if (deps.eventOutput) registerEventsAdmin(router, deps.eventOutput, { authorize: (req, reply) => authorize(req, reply, false), decodeParam, client, options: ADMIN_REQUEST, log });
  if (deps.delays) registerDelays(router, deps.delays, { authorize: (req, reply) => authorize(req, reply, false), decodeParam, client, options: ADMIN_REQUEST, log });
  if (deps.standby) registerStandby(router, deps.standby, { authorize: (req, reply) => authorize(req, reply, false), decodeParam, client, options: ADMIN_REQUEST, log });
}
