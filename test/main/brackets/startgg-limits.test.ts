// start.gg's limits and the reports' durability (docs/brackets.md, "Rate limits, pages, timeouts",
// "Reports"), against the local stand-in (test/helpers/startgg.ts):
//  - a phase linked by its bracket page's URL is read as that phase (its sets only);
//  - a large bracket (22 pages a read, read every 500 ms) never takes start.gg past its documented
//    80 requests per 60 s, and its reads leave the last 20 to reports: the 61st read waits (the
//    stand-in refuses none), and a map's report still goes at once;
//  - a map's report owed while start.gg is down survives a restart of the service (DATA_DIR): the
//    restarted service sends it once start.gg is back, under the same group code, no fixture twice.
import { afterAll, describe, expect, it } from 'vitest';
import { closeAll, serverDisconnect } from '../../helpers/clients.js';
import { fixture, fixtureList, playWholeMap, withMatchId } from '../../helpers/fixtures.js';
import { recordedMatch } from '../../helpers/recorded.js';
import { startTestService, tempDir, type TestService } from '../../helpers/service.js';
import { StartggStandin, type StandinSet } from '../../helpers/startgg.js';
import { bo3Set, brackets, LIGHTS, linkBracket, linkedSet, OWLS, TIDE, WOLVES } from '../../helpers/brackets.js';

const AUTH_KEY = 'BRACKETS-LIMITS-KEY';
const SG_TOKEN = 'sg-organiser-token-limits-5c2e';
const FAST = { BRACKETS_POLL_MS: '500', BRACKETS_RETRY_MS: '200', BRACKETS_RETRY_MAX_MS: '1000', BRACKETS_TIMEOUT_MS: '2000' };
const replay = recordedMatch();

const opened: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  closeAll();
  for (const o of opened.reverse()) await o.close();
});

async function standin(): Promise<StartggStandin> {
  const sg = await StartggStandin.start(SG_TOKEN);
  opened.push(sg);
  return sg;
}

async function service(env: Record<string, string>): Promise<TestService> {
  const svc = await startTestService({ AUTH_KEY, ...FAST, ...env });
  opened.push(svc);
  return svc;
}

describe('start.gg\'s limits, and reports that outlive a restart', () => {
  it('reads a phase linked by its bracket page\'s URL: that phase\'s sets only', async () => {
    const sg = await standin();
    const slug = 'tournament/autumn-cup-2026/event/valorant-phases';
    sg.events.set(slug, { id: 80, slug, name: 'Autumn Cup 2026 – phases', phases: [{ id: 1400, name: 'Pools' }, { id: 1401, name: 'Top 8' }], sets: [
      { id: 9301, phaseId: 1400, state: 1, round: 'Pool A Round 1', totalGames: 1, entrants: [{ ...LIGHTS }, { ...TIDE }] },
      { ...bo3Set(9302), phaseId: 1401 },
    ] });
    const svc = await service({ STARTGG_API_URL: sg.url });
    const linked = await linkBracket(svc.rest, svc.admin.token, { url: `https://www.start.gg/${slug}/brackets/1401/2250`, token: SG_TOKEN });
    expect(linked.status).toBe(201);
    expect(linked.body.link).toMatchObject({ target: { kind: 'phase', ref: '1401' } });
    await expect.poll(async () => (await brackets(svc.rest, svc.admin.token)).links[0].sync?.lastSyncAt ?? null, { timeout: 10_000 }).not.toBeNull();
    const view = await brackets(svc.rest, svc.admin.token);
    expect(view.links[0].name).toBe('Autumn Cup 2026 – phases – Top 8');
    expect(view.sets.map((s) => s.setId)).toEqual(['9302']);
    expect(sg.invalid()).toEqual([]);
  }, 30_000);

  it('keeps a large bracket\'s reads within 60 of start.gg\'s 80 requests per 60 s; a report still goes at once', async () => {
    const sg = await standin();
    const slug = 'tournament/big-open/event/valorant';
    // A best of 3, then 329 sets with one side unknown: 22 pages a read, one fixture.
    const sets: StandinSet[] = [bo3Set(29_999), ...Array.from({ length: 329 }, (_, i): StandinSet => ({ id: 20_000 + i, state: 1, round: 'Round 1', totalGames: 1, entrants: [{ ...LIGHTS }, null] }))];
    sg.events.set(slug, { id: 81, slug, name: 'Big Open', sets });
    const svc = await service({ STARTGG_API_URL: sg.url });
    expect((await linkBracket(svc.rest, svc.admin.token, { url: slug, token: SG_TOKEN })).status).toBe(201);
    await expect.poll(() => sg.received.length, { timeout: 30_000 }).toBe(60);
    // Reads are due every 500 ms: for two seconds more, no read reaches start.gg.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(sg.received.length).toBe(60);
    const read = (await brackets(svc.rest, svc.admin.token)).links[0].sync!;
    expect(read).toMatchObject({ lastError: null, errors: 0, sets: 1, requests: 22 });
    // A map ends meanwhile: its report does not wait for the window.
    const code = (await linkedSet(svc.rest, svc.admin.token, 29_999))!.groupCode;
    const m1 = await playWholeMap(svc, AUTH_KEY, code, withMatchId(replay, 'big-open-map-1'), { left: WOLVES.name, right: OWLS.name }, [WOLVES.name, OWLS.name]);
    if (m1.observer.connected) await serverDisconnect(m1.observer, 30_000);
    await expect.poll(() => sg.mutations.length, { timeout: 10_000 }).toBe(1);
    expect(sg.received.length).toBe(61);
    expect(sg.rateLimited).toBe(0);
    expect(sg.invalid()).toEqual([]);
  }, 60_000);

  it('sends a report owed while start.gg was down after the service restarted', async () => {
    const sg = await standin();
    const slug = 'tournament/autumn-cup-2026/event/valorant-restart';
    sg.events.set(slug, { id: 82, slug, name: 'Autumn Cup 2026 – restart', sets: [bo3Set(9401)] });
    const dataDir = tempDir();
    const first = await service({ STARTGG_API_URL: sg.url, DATA_DIR: dataDir });
    expect((await linkBracket(first.rest, first.admin.token, { url: slug, token: SG_TOKEN })).status).toBe(201);
    await expect.poll(() => linkedSet(first.rest, first.admin.token, 9401), { timeout: 10_000 }).toBeDefined();
    const code = (await linkedSet(first.rest, first.admin.token, 9401))!.groupCode;

    await sg.stop();
    const m1 = await playWholeMap(first, AUTH_KEY, code, withMatchId(replay, 'restart-map-1'), { left: WOLVES.name, right: OWLS.name }, [WOLVES.name, OWLS.name]);
    if (m1.observer.connected) await serverDisconnect(m1.observer, 30_000);
    await expect.poll(async () => (await fixture(first.rest, first.admin.token, code))?.results.length, { timeout: 15_000 }).toBe(1);
    await expect.poll(() => first.logged({ msg: 'bracket report not taken (sent again later)', groupCode: code }).length, { timeout: 10_000 }).toBeGreaterThan(0);
    await first.close();
    expect(sg.mutations).toHaveLength(0);

    await sg.resume();
    const second = await service({ STARTGG_API_URL: sg.url, DATA_DIR: dataDir });
    await expect.poll(() => sg.mutations.length, { timeout: 10_000 }).toBe(1);
    expect(sg.mutations[0]).toMatchObject({ name: 'reportBracketSet', args: { setId: '9401', gameData: [{ gameNum: 1, winnerId: '502', entrant1Score: 6, entrant2Score: 13 }] } });
    await expect.poll(() => linkedSet(second.rest, second.admin.token, 9401), { timeout: 5_000 }).toMatchObject({ groupCode: code, report: { state: 'sent', failures: 0 } });
    expect((await fixtureList(second.rest, second.admin.token)).map((f) => f.groupCode)).toEqual([code]);
    expect(sg.invalid()).toEqual([]);
  }, 60_000);
});
