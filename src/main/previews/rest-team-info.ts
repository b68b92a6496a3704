// GET /getTeamInfoForCode?groupCode= (docs/interface.md 4.5; docs/client-contract.md 5.3).
import type { TeamInfoStore } from './team-info-store.js';
import { queryParam, type Router } from '../http/router.js';

/** `scheduled`: a scheduled code's teams, answered while no match of the code made an entry (README, "A day's schedule"). */
export function registerTeamInfo(router: Router, store: TeamInfoStore, scheduled?: (groupCode: string) => { leftTeam: unknown; rightTeam: unknown } | undefined): void {
  router.get('/getTeamInfoForCode', async (req, reply) => {
    const groupCode = queryParam(req, 'groupCode');
    if (!groupCode) return reply.error(400, 'Group code is required');
    const info = (await store.get(groupCode)) ?? scheduled?.(groupCode);
    if (!info) return reply.error(404, 'Group code not found');
    reply.json(200, info);
  });
}
