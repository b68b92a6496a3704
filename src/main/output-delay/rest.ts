// The output delay's admin routes (README, "Output delay"; output-delay/output-delays.ts), with the
// other admin routes (rest/admin.ts: the same Bearer token, the same 404 without ADMIN_TOKEN):
//   GET  /admin/delays                      { delays: [{ groupCode, seconds }…], max }
//   GET  /admin/matches/:groupCode/delay    { groupCode, seconds }  (0: none; any code, live or not)
//   POST /admin/matches/:groupCode/delay    body { seconds }: 0 (off) to MAX_OUTPUT_DELAY_S; 200 { groupCode, seconds }
// A code's delay is set before or during its match; 0 removes it (what waits is handed on at once).
// 503 { error } when the store (Redis) did not take it.
import { MAX_OUTPUT_DELAY_S, OutputDelayError, parseDelayBody, type OutputDelays } from './output-delays.js';
import { sendJson as json, type AdminRouteContext } from '../http/admin-context.js';
import type { Router } from '../http/router.js';

export function registerDelays(router: Router, delays: OutputDelays, ctx: AdminRouteContext): void {
  const { log, client } = ctx;

  router.get('/admin/delays', (req, reply) => {
    if (ctx.authorize(req, reply) === null) return;
    json(reply, 200, { delays: delays.all(), max: MAX_OUTPUT_DELAY_S });
  }, ctx.options);

  router.get('/admin/matches/:groupCode/delay', (req, reply) => {
    if (ctx.authorize(req, reply) === null) return;
    const groupCode = ctx.decodeParam(req.params[0]);
    if (groupCode === null) return reply.error(400, 'Invalid group code');
    json(reply, 200, { groupCode, seconds: delays.secondsOf(groupCode) });
  }, ctx.options);

  router.post('/admin/matches/:groupCode/delay', async (req, reply) => {
    const tokenId = ctx.authorize(req, reply);
    if (tokenId === null) return;
    const groupCode = ctx.decodeParam(req.params[0]);
    if (groupCode === null) return reply.error(400, 'Invalid group code');
    let body: unknown;
    try { body = JSON.parse(req.body.toString('utf8')); } catch { return reply.error(400, 'The body must be JSON: { "seconds": n }'); }
    let seconds: number;
    try {
      seconds = parseDelayBody(body);
      await delays.set(groupCode, seconds);
    } catch (err) {
      if (err instanceof OutputDelayError) return reply.error(400, err.message);
      log.warn({ groupCode, error: (err as Error).message }, 'output delay not stored');
      return reply.error(503, 'The delay was not stored (the store did not answer); try again');
    }
    log.info({ tokenId, action: 'output_delay', groupCode, seconds, client: client(req) }, 'admin action: output delay set');
    json(reply, 200, { groupCode, seconds });
  }, { ...ctx.options, body: true });
}
