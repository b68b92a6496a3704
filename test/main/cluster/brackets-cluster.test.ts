// Linked brackets on Redis (docs/brackets.md): two nodes share one redis-server. A start.gg event
// linked through node B's admin API is kept in Redis and read by the one node that leads (node A,
// started first): its match becomes a fixture every node shows; a map played on node B is reported
// once, by the leader. Node A is killed (kill -9): node B takes the lead within the lease and goes
// on reading (a new set becomes a fixture) and reporting (a correction is re-reported). Every
// request valid against the stand-in's schema; the organiser's token in no node's log.
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN } from '../../helpers/admin.js';
import { closeAll, serverDisconnect } from '../../helpers/clients.js';
import { CLUSTER_KEY, logLines, startCluster, type Cluster } from '../../helpers/cluster.js';
import { fixture, playWholeMap, withMatchId } from '../../helpers/fixtures.js';
import { recordedMatch } from '../../helpers/recorded.js';
import { StartggStandin } from '../../helpers/startgg.js';
import { bo3Set, brackets, LIGHTS, linkBracket, linkedSet, OWLS, TIDE, WOLVES } from '../../helpers/brackets.js';

const SG_TOKEN = 'sg-organiser-token-cluster-8a1d';
const SLUG = 'tournament/autumn-cup-2026/event/valorant-cluster';
const TOKEN = TEST_ADMIN_TOKEN.slice(TEST_ADMIN_TOKEN.indexOf(':') + 1);
const LEADS = 'this node reads and reports the linked brackets';
const replay = recordedMatch();

let cluster: Cluster | undefined;
let sg: StartggStandin | undefined;
afterAll(async () => {
  closeAll();
  await cluster?.stop();
  await sg?.close();
});

describe('linked brackets on Redis', () => {
  it('one node reads and reports for all; another takes over when it is gone', async () => {
    sg = await StartggStandin.start(SG_TOKEN);
    const event = { id: 90, slug: SLUG, name: 'Autumn Cup 2026 – cluster', sets: [bo3Set(9501)] };
    sg.events.set(SLUG, event);
    cluster = await startCluster(2, {
      ADMIN_TOKEN: TEST_ADMIN_TOKEN, TRUST_REPLAY_TIMESTAMPS: 'true', METRICS_ENABLED: 'false', LOG_LEVEL: 'debug',
      INGEST_RATE_PER_SOCKET: '1000000', INGEST_BURST_PER_SOCKET: '1000000',
      STARTGG_API_URL: sg.url, BRACKETS_POLL_MS: '500', BRACKETS_RETRY_MS: '200', BRACKETS_RETRY_MAX_MS: '1000',
    });
    const [a, b] = cluster.nodes;
    expect(logLines(a, LEADS)).toHaveLength(1);
    expect(logLines(b, LEADS)).toHaveLength(0);

    expect((await linkBracket(b.urls.rest, TOKEN, { url: SLUG, token: SG_TOKEN })).status).toBe(201);
    await expect.poll(() => linkedSet(a.urls.rest, TOKEN, 9501), { timeout: 15_000 }).toBeDefined();
    const code = (await linkedSet(b.urls.rest, TOKEN, 9501))!.groupCode;
    expect((await fixture(b.urls.rest, TOKEN, code))?.status).toBe('upcoming');
    // Its log line comes through the node's output pipe, after what it did is seen.
    await expect.poll(() => logLines(a, 'bracket match scheduled').length, { timeout: 5_000 }).toBe(1);
    expect(logLines(b, 'bracket match scheduled')).toHaveLength(0);
    await expect.poll(async () => (await brackets(b.urls.rest, TOKEN)).links[0].sync?.lastSyncAt ?? null, { timeout: 10_000 }).not.toBeNull(); // the leader's reads, shown by B

    // Map 1 on node B: reported once, by the leader.
    const m1 = await playWholeMap(b.urls, CLUSTER_KEY, code, withMatchId(replay, 'cluster-bracket-1'), { left: WOLVES.name, right: OWLS.name }, [WOLVES.name, OWLS.name]);
    if (m1.observer.connected) await serverDisconnect(m1.observer, 30_000);
    await expect.poll(() => sg!.mutations.length, { timeout: 15_000 }).toBe(1);
    expect(sg.mutations[0].args).toMatchObject({ setId: '9501', gameData: [{ gameNum: 1, winnerId: '502', entrant1Score: 6, entrant2Score: 13 }] });
    await expect.poll(() => logLines(a, 'bracket report taken').length, { timeout: 5_000 }).toBe(1); // logged after the answer is kept
    expect(logLines(b, 'bracket report taken')).toHaveLength(0);

    // The leader is gone: B takes the lead, reads (a new set) and reports (a correction).
    closeAll();
    await a.stop('SIGKILL');
    await expect.poll(() => logLines(b, LEADS).length, { timeout: 15_000 }).toBe(1);
    event.sets.push({ id: 9502, state: 1, round: 'Lower Bracket Final', totalGames: 1, entrants: [{ ...LIGHTS }, { ...TIDE }] });
    await expect.poll(() => linkedSet(b.urls.rest, TOKEN, 9502), { timeout: 15_000 }).toBeDefined();
    const res = await fetch(`${b.urls.rest}/admin/fixtures/${code}/results/1`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: '{"scores":[11,13]}' });
    expect(res.status).toBe(200);
    await expect.poll(() => sg!.mutations.length, { timeout: 15_000 }).toBe(2);
    expect(sg.mutations[1].args).toMatchObject({ setId: '9501', gameData: [{ gameNum: 1, entrant1Score: 11, entrant2Score: 13 }] });
    expect(sg.invalid()).toEqual([]);
    for (const node of [a, b]) expect(node.out.join('\n')).not.toContain(SG_TOKEN);
  }, 120_000);
});
