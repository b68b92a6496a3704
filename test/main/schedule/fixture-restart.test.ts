// Fixtures and series results are operator data (README, "A day's schedule"): the embedded default
// keeps them in DATA_DIR/fixtures.json, so a restart between map 1 and map 2 keeps the fixture and
// map 1's result, and map 2's overlay gets seriesInfo 0–1 from the restarted service.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeAll, overlay } from '../../helpers/clients.js';
import { BO3, exampleCsv, fixture, playWholeMap, upload, withMatchId, type SeriesFrame } from '../../helpers/fixtures.js';
import { recordedMatch, replayObserver } from '../../helpers/recorded.js';
import { startTestService, tempDir, type TestService } from '../../helpers/service.js';
import { sampleFixture } from './fixture-store.contract.js';

const AUTH_KEY = 'FIXTURE-RESTART-KEY';
const replay = recordedMatch();
const services: TestService[] = [];
afterAll(async () => {
  closeAll();
  for (const s of services) await s.close();
});

describe('a restart of the embedded default between two maps', () => {
  it('keeps the fixture and map 1\'s result; map 2 gets the series from the restarted service', async () => {
    const DATA_DIR = tempDir();
    const first = await startTestService({ AUTH_KEY, DATA_DIR });
    services.push(first);
    expect((await upload(first.rest, first.admin.token, exampleCsv())).status).toBe(201);
    const m1 = await playWholeMap(first, AUTH_KEY, BO3.code, withMatchId(replay, 'restart-map-1'), { left: BO3.wolves.name, right: BO3.owls.name }, [BO3.wolves.name, BO3.owls.name]);
    await expect.poll(async () => (await fixture(first.rest, first.admin.token, BO3.code))?.results.length, { timeout: 30_000 }).toBe(1);
    m1.observer.close();
    closeAll();
    await first.shutdown();

    const second = await startTestService({ AUTH_KEY, DATA_DIR });
    services.push(second);
    expect(await fixture(second.rest, second.admin.token, BO3.code)).toMatchObject({ status: 'upcoming', wins: [0, 1], results: [{ map: 'Icebox', scores: [6, 13], winner: 1 }] });
    const fe = await overlay(second.broadcast, BO3.code);
    const { ack } = await replayObserver(second.ingest, replay, { key: AUTH_KEY, groupCode: BO3.code, leftTeam: { ...BO3.wolves, attackStart: true }, rightTeam: { ...BO3.owls, attackStart: false } });
    expect(ack.value).toBe(true);
    const frame = (await fe.waitFor(() => true)) as unknown as SeriesFrame;
    expect(frame.tools.seriesInfo).toMatchObject({ needed: 2, wonLeft: 0, wonRight: 1 });
    expect((frame.tools.seriesInfo.mapInfo as unknown[])[0]).toEqual({ type: 'past', map: 'Icebox', left: { score: 6, logo: BO3.wolves.url }, right: { score: 13, logo: BO3.owls.url } });
  }, 180_000);

  it('a map that was live when the process was killed is not live after the restart (it will be played again)', async () => {
    const DATA_DIR = tempDir();
    const live = sampleFixture('KILLED', { live: { sides: [0, 1], flags: [], startedAt: 1 }, results: [{ map: 'Ascent', scores: [13, 4], winner: 0 }] });
    fs.writeFileSync(path.join(DATA_DIR, 'fixtures.json'), JSON.stringify({ version: 1, fixtures: [live] }));
    const svc = await startTestService({ AUTH_KEY, DATA_DIR });
    services.push(svc);
    expect(await fixture(svc.rest, svc.admin.token, 'KILLED')).toMatchObject({ status: 'upcoming', live: null, wins: [1, 0] });
  });
});
