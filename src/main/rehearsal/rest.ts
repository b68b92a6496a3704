// The rehearsal routes of the admin API (README, "Rehearsals"), Bearer ADMIN_TOKEN like every
// state-changing admin route; registered by rest/admin.ts, which authorizes and logs:
//
//   POST /admin/rehearsals                        start: JSON body (rehearsal/request.ts); 201 + status
//   GET  /admin/rehearsals                        { rehearsals: [status…] } (every node's)
//   POST /admin/rehearsals/:groupCode/pause       200 + status
//   POST /admin/rehearsals/:groupCode/resume      200 + status
//   POST /admin/rehearsals/:groupCode/seek        JSON body { round }: 0 = the start; 200 + status
//   POST /admin/rehearsals/:groupCode/stop        200 { groupCode, stopped }
//
// The start's body may carry an uploaded replay file's text: its limit is twice
// REHEARSAL_MAX_UPLOAD_BYTES (the text is JSON-escaped inside the body) plus room for the rest.
import type { PreviewStore } from '../previews/index.js';
import type { RehearsalControl } from './remote.js';
import { parseSpec, RequestError } from './request.js';
import type { Rehearsals } from './rehearsals.js';
import type { RehearsalAction } from '../control/index.js';
import { sendJson as json, type AdminRouteContext } from '../http/admin-context.js';
import type { Router } from '../http/router.js';

export interface RehearsalRouteDeps {
  rehearsals: Rehearsals;
  control: RehearsalControl;
  previews: PreviewStore;
  maxUploadBytes: number;
  maxPayloadBytes: number;
}



export function registerRehearsals(router: Router, deps: RehearsalRouteDeps, ctx: AdminRouteContext): void {
  const { log } = ctx;

  router.post('/admin/rehearsals', async (req, reply) => {
    const tokenId = ctx.authorize(req, reply);
    if (tokenId === null) return;
    let spec;
    try {
      spec = await parseSpec(req.body, tokenId, deps.previews, { maxUploadBytes: deps.maxUploadBytes, maxPayloadBytes: deps.maxPayloadBytes });
    } catch (err) {
      if (!(err instanceof RequestError)) throw err;
      log.info({ tokenId, action: 'rehearsal_start', client: ctx.client(req), status: err.status, reason: err.message }, 'admin action: rehearsal refused');
      return reply.error(err.status, err.message);
    }
    log.info({ tokenId, action: 'rehearsal_start', groupCode: spec.groupCode, recording: spec.recording.source, client: ctx.client(req) }, 'admin action: rehearsal start');
    const answer = await deps.rehearsals.start(spec);
    json(reply, answer.status, answer.body);
  }, { ...ctx.options, body: true, maxBodyBytes: deps.maxUploadBytes * 2 + 1_048_576 });

  router.get('/admin/rehearsals', async (req, reply) => {
    const tokenId = ctx.authorize(req, reply);
    if (tokenId === null) return;
    json(reply, 200, { rehearsals: await deps.control.list(tokenId) });
  }, ctx.options);

  const action = (name: RehearsalAction) => router.post(`/admin/rehearsals/:groupCode/${name}`, async (req, reply) => {
    const tokenId = ctx.authorize(req, reply);
    if (tokenId === null) return;
    const groupCode = ctx.decodeParam(req.params[0]);
    if (groupCode === null) return reply.error(404, 'No rehearsal on this group code');
    let round: number | undefined;
    if (name === 'seek') {
      let body: unknown;
      try {
        body = JSON.parse(req.body.toString('utf8') || 'null');
      } catch {
        body = null;
      }
      const r = (body as { round?: unknown } | null)?.round;
      if (typeof r !== 'number' || !Number.isInteger(r) || r < 0) return reply.error(400, 'seek needs a JSON body { "round": n } (0: the start)');
      round = r;
    }
    log.info({ tokenId, action: `rehearsal_${name}`, groupCode, round, client: ctx.client(req) }, `admin action: rehearsal ${name}`);
    const answer = await deps.control.act(groupCode, name, round, tokenId);
    json(reply, answer.status, answer.body);
  }, { ...ctx.options, body: name === 'seek' });
  for (const name of ['pause', 'resume', 'seek', 'stop'] as const) action(name);
}
