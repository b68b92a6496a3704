// The operator routes of match events (README, "Webhooks", "Match records"), with the other admin
// routes (rest/admin.ts: the same Bearer token, the same 404 without ADMIN_TOKEN):
//   GET  /admin/webhooks                       { endpoints (without secrets, with delivery stats), deadLetters (each with its id) }
//   POST /admin/webhooks                       body { url, events?, organizations?, groupCodes?, batch?, id? }: 201 { endpoint, secret } (the secret only here), kept (DATA_DIR or Redis)
//   POST /admin/webhooks/:id/remove            { id, removed: true } (an endpoint added here; one of WEBHOOKS: 400)
//   POST /admin/webhooks/dead-letters/:id/redeliver   { redelivered: true, deadLetter, status }: the event sent again (events/redeliver.ts);
//                                              404 no such dead letter or endpoint, 410 the event is past the retention, 502 the endpoint did not take it
// The records and the dead letters are read through rest-read.ts (an admin token or a read token).
import { EndpointError, viewOf } from './endpoints.js';
import type { EventOutput } from './event-output.js';
import { sendJson as json, type AdminRouteContext } from '../http/admin-context.js';
import type { Reply, Router } from '../http/router.js';

export function registerEventsAdmin(router: Router, output: EventOutput, ctx: AdminRouteContext): void {
  const { log, client } = ctx;
  /** What the store answers; null after a 503 when it does not (Redis unreachable or too slow). */
  const kept = async <T>(reply: Reply, read: Promise<T>): Promise<T | null> => {
    try {
      return await read;
    } catch (err) {
      log.warn({ error: (err as Error).message }, 'records or dead letters unreadable');
      reply.error(503, 'The records store did not answer; try again');
      return null;
    }
  };

  /** A store that did not answer a write: 503 (nothing was changed, or the change is not yet everywhere: try again). */
  const storeDown = (reply: Reply, err: unknown): void => {
    log.warn({ error: (err as Error).message }, 'webhook endpoints or dead letters: the store did not answer');
    reply.error(503, 'The webhooks store did not answer; try again');
  };

  router.get('/admin/webhooks', async (req, reply) => {
    if (ctx.authorize(req, reply) === null) return;
    const deadLetters = await kept(reply, output.deadLetters());
    if (deadLetters) json(reply, 200, { endpoints: output.endpoints(), deadLetters });
  }, ctx.options);

  router.post('/admin/webhooks', async (req, reply) => {
    const tokenId = ctx.authorize(req, reply);
    if (tokenId === null) return;
    let body: unknown;
    try { body = JSON.parse(req.body.toString('utf8')); } catch { return reply.error(400, 'The body must be JSON'); }
    if (typeof body === 'object' && body !== null && 'secret' in body) return reply.error(400, 'secret: the service makes each endpoint\'s secret');
    let endpoint;
    try {
      endpoint = await output.addEndpoint(body);
    } catch (err) {
      if (err instanceof EndpointError) return reply.error(400, err.message);
      return storeDown(reply, err);
    }
    log.info({ tokenId, action: 'webhook_add', endpoint: endpoint.id, client: client(req) }, 'admin action: webhook endpoint added');
    json(reply, 201, { endpoint: viewOf(endpoint), secret: endpoint.secret });
  }, { ...ctx.options, body: true });

  router.post('/admin/webhooks/:id/remove', async (req, reply) => {
    const tokenId = ctx.authorize(req, reply);
    if (tokenId === null) return;
    let id: string;
    try { id = decodeURIComponent(req.params[0] ?? ''); } catch { return reply.error(404, 'Endpoint not found'); }
    let removed: boolean;
    try {
      removed = await output.removeEndpoint(id);
    } catch (err) {
      if (err instanceof EndpointError) return reply.error(400, err.message);
      return storeDown(reply, err);
    }
    if (!removed) return reply.error(404, 'Endpoint not found');
    log.info({ tokenId, action: 'webhook_remove', endpoint: id, client: client(req) }, 'admin action: webhook endpoint removed');
    json(reply, 200, { id, removed: true });
  }, ctx.options);

  router.post('/admin/webhooks/dead-letters/:id/redeliver', async (req, reply) => {
    const tokenId = ctx.authorize(req, reply);
    if (tokenId === null) return;
    const id = req.params[0] ?? '';
    if (!/^[0-9a-f]{1,64}$/.test(id)) return reply.error(404, 'Dead letter not found');
    const outcome = await kept(reply, output.redeliver(id));
    if (outcome === null) return;
    if (!outcome.ok) return reply.error(outcome.status, outcome.error);
    log.info({ tokenId, action: 'webhook_redeliver', endpoint: outcome.letter.endpointId, eventId: outcome.letter.eventId, client: client(req) }, 'admin action: dead letter redelivered');
    json(reply, 200, { redelivered: true, deadLetter: outcome.letter, status: outcome.status, removed: outcome.removed });
  }, ctx.options);
}
