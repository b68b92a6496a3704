// Rehearsals in scale-out (README, "Rehearsals"): a rehearsal runs on the node that claimed its group
// code; another node's admin API lists it, pauses it, seeks it and stops it (over the ControlBus), its
// overlays there follow it, and a real observer's logon on another node ends it and takes the code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminApi, TEST_ADMIN_TOKEN } from '../../helpers/admin.js';
import { closeAll, connected, connectObserver, overlay, logon, TEAMS } from '../../helpers/clients.js';
import { CLUSTER_KEY, startCluster, type Cluster } from '../../helpers/cluster.js';
import { recordedMatch, replayLogon } from '../../helpers/recorded.js';

const replay = recordedMatch();
const TOKEN = TEST_ADMIN_TOKEN.slice(TEST_ADMIN_TOKEN.indexOf(':') + 1);
let cluster: Cluster;

beforeAll(async () => {
  cluster = await startCluster(2, { ADMIN_TOKEN: TEST_ADMIN_TOKEN });
}, 90_000);
afterAll(async () => {
  closeAll();
  await cluster?.stop();
});

type Frame = { teams: Array<{ teamName: string }>; roundNumber: number };
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
async function post(rest: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${rest}${path}`, { method: 'POST', headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
async function list(rest: string): Promise<Array<{ groupCode: string; state: string; round: number }>> {
  return ((await (await fetch(`${rest}/admin/rehearsals`, { headers })).json()) as { rehearsals: never[] }).rehearsals;
}

describe('a rehearsal on a cluster of two nodes', () => {
  it('started on node A: node B lists, pauses, seeks it and its overlays there follow; a real observer on node B ends it', async () => {
    const [a, b] = cluster.nodes;
    const code = 'CLRH01';
    const onB = await overlay(b.urls.broadcast, code);
    const started = await post(a.urls.rest, '/admin/rehearsals', { groupCode: code, speed: 10, startRound: 3, leftTeam: { name: 'Cluster Left', tricode: 'CLL', url: '' } });
    expect(started.status).toBe(201);
    await onB.waitFor((f) => (f as unknown as Frame).roundNumber === 3 && (f as unknown as Frame).teams[0].teamName === 'Cluster Left');
    expect(await new AdminApi(b.urls.rest).match(code)).toMatchObject({ node: 'node-a', rehearsal: true });
    expect(await list(b.urls.rest)).toEqual([expect.objectContaining({ groupCode: code, state: 'playing' })]);

    expect(await post(b.urls.rest, `/admin/rehearsals/${code}/pause`)).toMatchObject({ status: 200, body: { state: 'paused' } });
    expect(await list(a.urls.rest)).toEqual([expect.objectContaining({ groupCode: code, state: 'paused' })]);
    expect(await post(b.urls.rest, `/admin/rehearsals/${code}/seek`, { round: 10 })).toMatchObject({ status: 200, body: { round: 10, state: 'paused' } });
    await onB.waitFor((f) => (f as unknown as Frame).roundNumber === 10);
    expect(await post(b.urls.rest, `/admin/rehearsals/${code}/resume`)).toMatchObject({ status: 200, body: { state: 'playing' } });

    // A real observer's logon on node B: the rehearsal on node A ends, the live match starts on B.
    const s = connectObserver(b.urls.ingest);
    await connected(s);
    const { ack } = await logon(s, 'obs_logon', replayLogon(replay, { key: CLUSTER_KEY, groupCode: code, ...TEAMS }));
    expect(ack.value).toBe(true);
    expect(await list(a.urls.rest)).toEqual([]);
    expect(await list(b.urls.rest)).toEqual([]);
    await expect.poll(async () => new AdminApi(a.urls.rest).match(code)).toMatchObject({ node: 'node-b' });
    expect(await new AdminApi(a.urls.rest).match(code)).not.toHaveProperty('rehearsal');
    s.close();
  }, 90_000);

  it('node B stops a rehearsal node A runs; unknown codes answer 404 on every node', async () => {
    const [a, b] = cluster.nodes;
    const code = 'CLRH02';
    expect((await post(a.urls.rest, '/admin/rehearsals', { groupCode: code, speed: 1 })).status).toBe(201);
    // The owner's own force-end (stop) waits for its own match_removed: its last match ends there.
    expect(await post(b.urls.rest, `/admin/rehearsals/${code}/stop`)).toEqual({ status: 200, body: { groupCode: code, stopped: true } });
    for (const node of [a, b]) {
      await expect.poll(() => new AdminApi(node.urls.rest).has(code)).toBe(false);
      expect((await post(node.urls.rest, `/admin/rehearsals/${code}/pause`)).status).toBe(404);
    }
  }, 60_000);
});
