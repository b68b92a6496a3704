// The read routes of match events (README, "Match records", "Read token"): an admin token
// (ADMIN_TOKEN) or a read token (EVENTS_READ_TOKEN, the token of GET /events) reads them, so a stream
// client told `event: gap` can fetch the record with the token it has. Registered when either is set
// (rest/index.ts, rest/readers.ts); nothing here changes anything.
//   GET  /admin/records[?groupCode=&limit=]    { records: [summary…] }, newest first (every node's with REDIS_URL)
//   GET  /admin/records/:matchKey              the record (JSON; its schema: GET /schema/record.json)
//   GET  /admin/records/:matchKey/rounds.csv   one row per player per round
//   GET  /admin/records/:matchKey/players.csv  one row per player for the match
//   GET  /admin/webhooks/dead-letters          { deadLetters } (each with its id), without the endpoints
import { stringify } from 'csv-stringify/sync';
import type { EventOutput } from './event-output.js';
import { MATCH_CSV_COLUMNS, ROUND_CSV_COLUMNS, type MatchRecord } from './record.js';
import { NO_STORE, sendJson as json, type AdminRouteContext } from '../http/admin-context.js';
import { queryParam, type Reply, type Router } from '../http/router.js';

function csv(reply: Reply, name: string, columns: readonly string[], rows: Record<string, unknown>[]): void {
  const text = stringify(rows, { header: true, columns: [...columns] });
  reply.send(200, 'text/csv; charset=utf-8', text, { ...NO_STORE, 'Content-Disposition': `attachment; filename="${name}"` });
}

/** `ctx.authorize` takes an admin token or a read token. */
export function registerEventsRead(router: Router, output: EventOutput, ctx: AdminRouteContext): void {
  const { log } = ctx;
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
  /** The record, undefined when there is none; null (503 sent) when the store did not answer. */
  const recordOf = async (raw: string, reply: Reply): Promise<MatchRecord | undefined | null> => {
    let key: string;
    try { key = decodeURIComponent(raw); } catch { return undefined; }
    return kept(reply, output.records.get(key));
  };

  router.get('/admin/webhooks/dead-letters', async (req, reply) => {
    if (ctx.authorize(req, reply) === null) return;
    const deadLetters = await kept(reply, output.deadLetters());
    if (deadLetters) json(reply, 200, { deadLetters });
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
