// The brackets' admin routes (README, "Brackets: start.gg and Challonge in the loop"), with the other admin routes
// (rest/admin.ts: the same token, the same 404 without ADMIN_TOKEN). Reads take Bearer or Basic
// (the dashboard reads with the browser's credentials); changes Bearer only. No answer holds a token.
//
//   GET  /admin/brackets                             { links (each with its read's state), sets (each linked match: its report's state, flags) }
//   POST /admin/brackets                             { url, token, mode?: auto|confirm, platform?: startgg|challonge, bestOf?: 1|3|5 }: 201 { link }
//   PUT  /admin/brackets/:id                         { mode: auto|confirm }: how its reports go from now on
//   POST /admin/brackets/:id/delete                  unlinks it (its fixtures stay)
//   POST /admin/brackets/:id/sync                    reads it now: 202 { reading: true } (on the leading node; another: false, read at the next poll)
//   GET  /admin/brackets/sets/:groupCode             one linked match, with every exchange (sent and answered)
//   POST /admin/brackets/sets/:groupCode/confirm     the held report goes out: { confirmed }; body { held }?: only if it is still that one
//   GET  /admin/brackets/codes.csv[?stream=&station=]  the group codes for the observers, per stream and station
import { stringify } from 'csv-stringify/sync';
import { NO_STORE, sendJson as json, type AdminRouteContext } from '../http/admin-context.js';
import { queryParam, type Reply, type Request, type Router } from '../http/router.js';
import { LinkError, type Brackets } from './brackets.js';

export interface BracketRouteContext extends AdminRouteContext {
  /** Bearer or Basic: the token id, or null after answering 401. */
  authorizeRead(req: Request, reply: Reply): string | null;
}

export const CODES_CSV_COLUMNS = ['stream', 'station', 'group_code', 'round', 'team1', 'team2', 'status', 'set_id'] as const;

export function registerBrackets(router: Router, brackets: Brackets, ctx: BracketRouteContext): void {
  const { log, client } = ctx;
  const withBody = { ...ctx.options, headers: [...(ctx.options.headers ?? []), 'content-type'], body: true, maxBodyBytes: 16_384 };
  const guarded = (reply: Reply, err: unknown): void => {
    log.warn({ error: (err as Error).message }, 'brackets store did not answer');
    reply.error(503, 'The brackets store did not answer; try again');
  };
  const id = (raw: string): string | null => (/^lnk_[0-9a-f]{12}$/.test(raw) ? raw : null);

  router.get('/admin/brackets', async (req, reply) => {
    if (ctx.authorizeRead(req, reply) === null) return;
    try { json(reply, 200, await brackets.view()); } catch (err) { guarded(reply, err); }
  }, ctx.options);

  router.post('/admin/brackets', async (req, reply) => {
    const tokenId = ctx.authorize(req, reply);
    if (tokenId === null) return;
    let body: unknown;
    try { body = JSON.parse(req.body.toString('utf8')); } catch { return reply.error(400, 'The body must be JSON: { "url", "token", "mode"?, "platform"?, "bestOf"? }'); }
    try {
      const link = await brackets.link(body);
      log.info({ tokenId, action: 'bracket_link', linkId: link.id, platform: link.platform, mode: link.mode, client: client(req) }, 'admin action: bracket linked');
      json(reply, 201, { link });
    } catch (err) {
      if (!(err instanceof LinkError)) return guarded(reply, err);
      log.info({ tokenId, action: 'bracket_link', reason: err.message, client: client(req) }, 'admin action refused');
      reply.error(err.status, err.message);
    }
  }, withBody);

  router.put('/admin/brackets/:id', async (req, reply) => {
    const tokenId = ctx.authorize(req, reply);
    if (tokenId === null) return;
    const linkId = id(req.params[0]);
    let body: { mode?: unknown };
    try { body = JSON.parse(req.body.toString('utf8')) as { mode?: unknown }; } catch { return reply.error(400, 'The body must be JSON: { "mode": "auto" | "confirm" }'); }
    let link;
    try {
      link = linkId === null ? null : await brackets.setMode(linkId, body?.mode);
    } catch (err) {
      if (!(err instanceof LinkError)) return guarded(reply, err);
      return reply.error(err.status, err.message);
    }
    if (!link) return reply.error(404, 'Bracket link not found');
    log.info({ tokenId, action: 'bracket_mode', linkId, mode: link.mode, client: client(req) }, 'admin action: bracket report mode changed');
    json(reply, 200, { link });
  }, withBody);

  router.post('/admin/brackets/:id/delete', async (req, reply) => {
    const tokenId = ctx.authorize(req, reply);
    if (tokenId === null) return;
    const linkId = id(req.params[0]);
    try {
      if (linkId === null || !(await brackets.unlink(linkId))) return reply.error(404, 'Bracket link not found');
    } catch (err) { return guarded(reply, err); }
    log.info({ tokenId, action: 'bracket_unlink', linkId, client: client(req) }, 'admin action: bracket unlinked');
    json(reply, 200, { id: linkId, deleted: true });
  }, ctx.options);

  router.post('/admin/brackets/:id/sync', async (req, reply) => {
    const tokenId = ctx.authorize(req, reply);
    if (tokenId === null) return;
    const linkId = id(req.params[0]);
    let asked;
    try {
      asked = linkId === null ? null : await brackets.syncNow(linkId);
    } catch (err) { return guarded(reply, err); }
    if (asked === null) return reply.error(404, 'Bracket link not found');
    log.info({ tokenId, action: 'bracket_sync', linkId, client: client(req) }, 'admin action: bracket read now');
    json(reply, 202, { id: linkId, reading: asked.reading });
  }, ctx.options);

  router.get('/admin/brackets/sets/:groupCode', async (req, reply) => {
    if (ctx.authorizeRead(req, reply) === null) return;
    const code = ctx.decodeParam(req.params[0]);
    try {
      const set = code === null ? undefined : await brackets.setOf(code);
      if (!set) return reply.error(404, 'No linked bracket match has this group code');
      json(reply, 200, set);
    } catch (err) { guarded(reply, err); }
  }, ctx.options);

  router.post('/admin/brackets/sets/:groupCode/confirm', async (req, reply) => {
    const tokenId = ctx.authorize(req, reply);
    if (tokenId === null) return;
    const code = ctx.decodeParam(req.params[0]);
    let seen: unknown;
    const text = req.body.toString('utf8');
    try { seen = text.trim() === '' ? undefined : (JSON.parse(text) as { held?: unknown } | null)?.held; } catch { return reply.error(400, 'The body must be empty or JSON: { "held": <the held report as shown> }'); }
    let confirmed;
    try {
      confirmed = code === null ? null : await brackets.confirm(code, seen);
    } catch (err) { return guarded(reply, err); }
    if (confirmed === null) return reply.error(404, 'No linked bracket match has this group code');
    if (confirmed === 'nothing') return reply.error(409, 'No report is held for this match');
    if (confirmed === 'changed') return reply.error(409, 'The held report changed (another map ended): look at it again');
    log.info({ tokenId, action: 'bracket_confirm', groupCode: code, report: confirmed, client: client(req) }, 'admin action: bracket report confirmed');
    json(reply, 200, { groupCode: code, confirmed });
  }, withBody);

  router.get('/admin/brackets/codes.csv', async (req, reply) => {
    if (ctx.authorizeRead(req, reply) === null) return;
    const stream = queryParam(req, 'stream');
    const station = queryParam(req, 'station');
    let sets;
    try { sets = (await brackets.view()).sets; } catch (err) { return guarded(reply, err); }
    const rows = sets
      .filter((s) => (stream === undefined || s.stream === stream) && (station === undefined || s.station === station))
      .map((s) => ({ stream: s.stream, station: s.station, group_code: s.groupCode, round: s.round, team1: s.teams[0] ?? '', team2: s.teams[1] ?? '', status: s.status, set_id: s.setId }));
    const text = stringify(rows, { header: true, columns: [...CODES_CSV_COLUMNS] });
    reply.send(200, 'text/csv; charset=utf-8', text, { ...NO_STORE, 'Content-Disposition': 'attachment; filename="group-codes.csv"' });
  }, ctx.options);
}
