// The standby observer's operator routes (README, "A standby observer per match"; docs/reliability.md),
// registered with the other admin routes (rest/admin.ts: the same Bearer token, the same 404):
//
//   POST /admin/matches/:groupCode/standby   arms a standby window: { groupCode, armedUntil }
//   POST /admin/matches/:groupCode/failover  swaps the primary and the standby observer now:
//                                            { groupCode, primary, applied }; on a node that does not
//                                            run the match, asked of its owner: 202 { groupCode, requested }
import type { Standby } from './standby.js';
import type { ControlBus } from '../control/index.js';
import type { MatchDirectory } from '../matches/index.js';
import { sendJson as json, type AdminRouteContext } from '../http/admin-context.js';
import type { Router } from '../http/router.js';

export interface StandbyRouteDeps {
  standby: Standby;
  directory: MatchDirectory;
  control: ControlBus;
  /** Whether this process runs the match (a swap of another node's match goes on the ControlBus). */
  ownedHere(groupCode: string): boolean;
}



export function registerStandby(router: Router, deps: StandbyRouteDeps, ctx: AdminRouteContext): void {
  const { log, client } = ctx;

  router.post('/admin/matches/:groupCode/standby', async (req, reply) => {
    const tokenId = ctx.authorize(req, reply);
    if (tokenId === null) return;
    const groupCode = ctx.decodeParam(req.params[0]);
    const armed = groupCode === null ? undefined : await deps.standby.admission.arm(groupCode);
    if (groupCode === null || armed === undefined) {
      log.info({ tokenId, action: 'arm_standby', groupCode, client: client(req), result: 'not_found' }, 'admin action: standby window for an unknown match');
      return reply.error(404, 'Match not found');
    }
    log.info({ tokenId, action: 'arm_standby', groupCode, armedUntil: armed.armedUntil, client: client(req) }, 'admin action: standby window armed');
    json(reply, 200, { groupCode, armedUntil: armed.armedUntil });
  }, ctx.options);

  router.post('/admin/matches/:groupCode/failover', async (req, reply) => {
    const tokenId = ctx.authorize(req, reply);
    if (tokenId === null) return;
    const groupCode = ctx.decodeParam(req.params[0]);
    if (groupCode === null || !deps.directory.get(groupCode)) {
      log.info({ tokenId, action: 'failover', groupCode, client: client(req), result: 'not_found' }, 'admin action: failover of an unknown match');
      return reply.error(404, 'Match not found');
    }
    // The swap happens where the match runs (its relay); another node's owner is asked on the ControlBus.
    const done = deps.standby.relay.swap(groupCode);
    if (!done && !deps.ownedHere(groupCode)) {
      await deps.control.publish({ t: 'observer_swap', groupCode });
      log.info({ tokenId, action: 'failover', groupCode, client: client(req), result: 'requested' }, 'admin action: observer swap asked of the match\'s node');
      return json(reply, 202, { groupCode, requested: true });
    }
    if (!done) return reply.error(409, 'The match has no standby observer');
    log.info({ tokenId, action: 'failover', groupCode, primary: done.to, applied: done.applied, client: client(req) }, 'admin action: observers swapped');
    json(reply, 200, { groupCode, primary: done.to, applied: done.applied });
  }, ctx.options);
}
