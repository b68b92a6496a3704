// The schedule on Redis (README, "A day's schedule"): every node sees the fixtures an operator
// loaded on one; the node that ran map 1 is killed (kill -9) after its result was recorded, and map
// 2, on another node, gets the series (seriesInfo 0–1 with map 1's scores) and the fixture's teams.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAll, overlay } from '../../helpers/clients.js';
import { CLUSTER_KEY, startCluster, type Cluster } from '../../helpers/cluster.js';
import { BO3, exampleCsv, fixture, fixtureList, playWholeMap, upload, withMatchId, type SeriesFrame } from '../../helpers/fixtures.js';
import { recordedMatch, replayObserver } from '../../helpers/recorded.js';

const TOKEN = 'cluster-fixtures-token-71f3c0';
const replay = recordedMatch();

describe('fixtures and the series on Redis', () => {
  let cluster: Cluster;
  beforeAll(async () => { cluster = await startCluster(2, { ADMIN_TOKEN: `ops:${TOKEN}` }); }, 60_000);
  afterAll(async () => {
    closeAll();
    await cluster?.stop();
  });

  it('the loss of the node that ran map 1 keeps the fixture and map 1\'s result', async () => {
    const [a, b] = cluster.nodes;
    expect((await upload(a.urls.rest, TOKEN, exampleCsv())).status).toBe(201);
    expect((await fixtureList(b.urls.rest, TOKEN)).map((f) => f.groupCode)).toContain(BO3.code);
    // Before any game, on the other node too (its view is read every second).
    await expect.poll(async () => (await fetch(`${b.urls.rest}/getTeamInfoForCode?groupCode=LBR201`)).status, { timeout: 10_000 }).toBe(200);

    const m1 = await playWholeMap(a.urls, CLUSTER_KEY, BO3.code, withMatchId(replay, 'cluster-map-1'), { left: BO3.wolves.name, right: BO3.owls.name }, [BO3.wolves.name, BO3.owls.name]);
    await expect.poll(async () => (await fixture(b.urls.rest, TOKEN, BO3.code))?.results.length, { timeout: 30_000 }).toBe(1);
    m1.observer.close();
    closeAll();
    await a.stop('SIGKILL');

    expect(await fixture(b.urls.rest, TOKEN, BO3.code)).toMatchObject({ wins: [0, 1], results: [{ map: 'Icebox', scores: [6, 13], winner: 1 }] });
    const fe = await overlay(b.urls.broadcast, BO3.code);
    const { ack } = await replayObserver(b.urls.ingest, replay, { key: CLUSTER_KEY, groupCode: BO3.code, leftTeam: { ...BO3.owls, attackStart: true }, rightTeam: { ...BO3.wolves, attackStart: false } });
    expect(ack.value).toBe(true);
    const frame = (await fe.waitFor(() => true)) as unknown as SeriesFrame;
    expect(frame.teams.map((t) => t.teamName)).toEqual([BO3.owls.name, BO3.wolves.name]);
    expect(frame.tools.seriesInfo).toMatchObject({ needed: 2, wonLeft: 1, wonRight: 0 });
    expect((frame.tools.seriesInfo.mapInfo as unknown[])[0]).toEqual({ type: 'past', map: 'Icebox', left: { score: 13, logo: BO3.owls.url }, right: { score: 6, logo: BO3.wolves.url } });
  }, 240_000);
});
