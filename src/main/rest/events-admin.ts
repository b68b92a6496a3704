// The operator routes of match events (README, "Webhooks", "Match records"), with the other admin
// routes (rest/admin.ts: the same Bearer token, the same 404 without ADMIN_TOKEN):
//   GET  /admin/webhooks                       { endpoints (without secrets, with delivery stats), deadLetters }
//   POST /admin/webhooks                       body { url, events?, organizations?, id? }: 201 { endpoint, secret } (the secret only here)
//   POST /admin/webhooks/:id/remove            { id, removed: true }
//   GET  /admin/records[?groupCode=&limit=]    { records: [summary…] }, newest first (every node's with REDIS_URL)
//   GET  /admin/records/:matchKey              the record (JSON)
//   GET  /admin/records/:matchKey/rounds.csv   one row per player per round
//   GET  /admin/records/:matchKey/players.csv  one row per player for the match
import { stringify } from 'csv-stringify/sync';
import { EndpointError, viewOf } from '../events-out/endpoints.js';
import type { EventOutput } from '../events-out/index.js';
import { MATCH_CSV_COLUMNS, ROUND_CSV_COLUMNS, type MatchRecord } from '../events-out/record.js';
import { NO_STORE, sendJson as json, type AdminRouteContext } from './admin-context.js';
import { queryParam, type Reply, type Router } from './http.js';

function csv(reply: Reply, name: string, columns: readonly string[], rows: Record<string, unknown>[]): void {
  const text = stringify(rows, { header: true, columns: [...columns] });
  reply.send(200, 'text/csv; charset=utf-8', text, { ...NO_STORE, 'Content-Disposition': `attachment; filename="${name}"` });
}

export function registerEventsAdmin(router: Router, output: EventOutput, ctx: AdminRouteContext): void {
  const { log, client } = ctx;
  /** The record, undefined when there is none; null (503 sent) when the store did not answer. */
  const recordOf = async (raw: string, reply: Reply): Promise<MatchRecord | undefined | null> => {
    let key: string;
    try { key = decodeURIComponent(raw); } catch { return undefined; }
    return kept(reply, output.records.get(key));
  };
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

  router.get('/admin/webhooks', async (req, reply) => {
    if (ctx.authorize(req, reply) === null) return;
    const deadLetters = await kept(reply, output.deadLetters());
    if (deadLetters) json(reply, 200, { endpoints: output.endpoints(), deadLetters });
  }, ctx.options);

  router.post('/admin/webhooks', (req, reply) => {
    const tokenId = ctx.authorize(req, reply);
    if (tokenId === null) return;
    let body: unknown;
    try { body = JSON.parse(req.body.toString('utf8')); } catch { return reply.error(400, 'The body must be JSON'); }
    if (typeof body === 'object' && body !== null && 'secret' in body) return reply.error(400, 'secret: the service makes each endpoint\'s secret');
    try {
      const endpoint = output.addEndpoint(body);
      log.info({ tokenId, action: 'webhook_add', endpoint: endpoint.id, client: client(req) }, 'admin action: webhook endpoint added');
      json(reply, 201, { endpoint: viewOf(endpoint), secret: endpoint.secret });
    } catch (err) {
      if (err instanceof EndpointError) return reply.error(400, err.message);
      throw err;
    }
  }, { ...ctx.options, body: true });

  router.post('/admin/webhooks/:id/remove', (req, reply) => {
    const tokenId = ctx.authorize(req, reply);
    if (tokenId === null) return;
    const id = decodeURIComponent(req.params[0] ?? '');
    if (!output.removeEndpoint(id)) return reply.error(404, 'Endpoint not found');
    log.info({ tokenId, action: 'webhook_remove', endpoint: id, client: client(req) }, 'admin action: webhook endpoint removed');
    json(reply, 200, { id, removed: true });
  }, ctx.options);

  router.get('/admin/records', async (req, reply) => {
    if (ctx.authorize(req, reply) === null) return;
    const groupCode = queryParam(req, 'groupCode');
    const limitText = queryParam(req, 'limit');
    const limit = limitText === undefined ? undefined : Number(limitText);
    if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1)) return reply.error(400, 'limit: a whole number from 1');
    const records = await kept(reply, output.records.list({ ...(groupCode ? { groupCode } : {}), ...(limit ? { limit } : {}) }));
    if (records) json(reply, 200, { records });
  }, ctx.options);

  router.get('/admin/records/:matchKey', async (req, reply) => {
    if (ctx.authorize(req, reply) === null) return;
    const record = await recordOf(req.params[0], reply);
    if (record === null) return;
    if (!record) return reply.error(404, 'Record not found');
    json(reply, 200, record);
  }, ctx.options);

  router.get('/admin/records/:matchKey/rounds.csv', async (req, reply) => {
    if (ctx.authorize(req, reply) === null) return;
    const record = await recordOf(req.params[0], reply);
    if (record === null) return;
    if (!record) return reply.error(404, 'Record not found');
    csv(reply, `${record.matchKey}-rounds.csv`, ROUND_CSV_COLUMNS, record.playerRounds.map((l) => ({ matchKey: record.matchKey, ...l })));
  }, ctx.options);

  router.get('/admin/records/:matchKey/players.csv', async (req, reply) => {
    if (ctx.authorize(req, reply) === null) return;
    const record = await recordOf(req.params[0], reply);
    if (record === null) return;
    if (!record) return reply.error(404, 'Record not found');
    csv(reply, `${record.matchKey}-players.csv`, MATCH_CSV_COLUMNS, record.players.map((l) => ({ matchKey: record.matchKey, ...l })));
  }, ctx.options);
}
