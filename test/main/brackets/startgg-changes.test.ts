// The schedule in step with a linked start.gg event as its bracket changes (README, "Brackets:
// start.gg in the loop"; docs/brackets.md): an entrant replaced before the match starts changes the
// fixture; a match the bracket drops removes its fixture; a change while a map is live does not
// touch the fixture and is flagged (admin API, one log line), and applies once nothing is being
// played; a bracket that cannot be read shows why (its read's state), and backs off.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAll } from '../../helpers/clients.js';
import { fixture } from '../../helpers/fixtures.js';
import { recordedMatch, replayObserver, sendRecords } from '../../helpers/recorded.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { StartggStandin, type StandinEvent } from '../../helpers/startgg.js';
import { bo3Set, brackets, LIGHTS, linkBracket, linkedSet, OWLS, STORM, syncNow, TIDE, WOLVES } from '../../helpers/brackets.js';

const AUTH_KEY = 'BRACKETS-CHANGES-KEY';
const SG_TOKEN = 'sg-organiser-token-changes-41aa';
const SLUG = 'tournament/autumn-cup-2026/event/valorant-side';
const replay = recordedMatch();
const LAST_ROSTER = replay.records.map((r) => r.type).lastIndexOf('roster');

type Teams = { teams: Array<{ name: string; url: string }> } | undefined;

describe('a linked start.gg event whose bracket changes', () => {
  let sg: StartggStandin;
  let svc: TestService;
  let token: string;
  let linkId: string;
  let event: StandinEvent;

  beforeAll(async () => {
    sg = await StartggStandin.start(SG_TOKEN);
    event = { id: 78, slug: SLUG, name: 'Autumn Cup 2026 – side event', sets: [
      { id: 9101, state: 1, round: 'Lower Bracket Round 2', totalGames: 1, entrants: [{ ...LIGHTS }, { ...TIDE }], stream: 'autumncup_b' },
      bo3Set(9102, 'autumncup_b', 4),
      { id: 9103, state: 6, round: 'Lower Bracket Round 3', totalGames: 3, entrants: [{ ...LIGHTS }, { ...STORM }] },
    ] };
    sg.events.set(SLUG, event);
    // A long poll: the test reads the bracket when it changed it (POST …/sync), as an operator may.
    svc = await startTestService({ AUTH_KEY, STARTGG_API_URL: sg.url, BRACKETS_POLL_MS: '60000', BRACKETS_RETRY_MS: '200', BRACKETS_RETRY_MAX_MS: '1000' });
    token = svc.admin.token;
  }, 30_000);

  afterAll(async () => {
    closeAll();
    await svc?.close();
    await sg?.close();
  });

  /** Reads the bracket now and waits for the read to be done (its lastSyncAt moves). */
  const lastRead = async () => (await brackets(svc.rest, token)).links.find((l) => l.id === linkId)?.sync?.lastSyncAt ?? null;
  const readNow = async () => {
    await expect.poll(lastRead, { timeout: 10_000 }).not.toBeNull(); // the first read's state is kept
    const before = await lastRead();
    expect(await syncNow(svc.rest, token, linkId)).toBe(202);
    await expect.poll(lastRead, { timeout: 10_000 }).not.toBe(before);
  };

  it('links the event: its three matches become fixtures', async () => {
    const linked = await linkBracket(svc.rest, token, { url: SLUG, token: SG_TOKEN });
    expect(linked.status).toBe(201);
    linkId = (linked.body.link as { id: string }).id;
    await expect.poll(async () => (await brackets(svc.rest, token)).sets.length, { timeout: 10_000 }).toBe(3);
  }, 20_000);

  it('changes the fixture when an entrant is replaced before the match starts', async () => {
    const code = (await linkedSet(svc.rest, token, 9101))!.groupCode;
    expect(((await fixture(svc.rest, token, code)) as unknown as Teams)!.teams.map((t) => t.name)).toEqual([LIGHTS.name, TIDE.name]);
    expect((await fetch(`${svc.rest}/admin/brackets/${linkId}/sync`, { method: 'POST' })).status).toBe(401);
    event.sets[0].entrants[1] = { ...STORM };
    await readNow();
    const f = (await fixture(svc.rest, token, code)) as unknown as Teams;
    expect(f!.teams.map((t) => [t.name, t.url])).toEqual([[LIGHTS.name, LIGHTS.logo], [STORM.name, STORM.logo]]);
    expect(await linkedSet(svc.rest, token, 9101)).toMatchObject({ groupCode: code, entrantIds: ['511', '520'], flags: [] });
    expect(svc.logged({ msg: 'bracket match changed: fixture changed', groupCode: code })).toHaveLength(1);
  }, 20_000);

  it('removes the fixture of a match the bracket drops', async () => {
    const code = (await linkedSet(svc.rest, token, 9103))!.groupCode;
    event.sets.splice(2, 1);
    await readNow();
    expect(await fixture(svc.rest, token, code)).toBeUndefined();
    expect(await linkedSet(svc.rest, token, 9103)).toBeUndefined();
  }, 20_000);

  it('does not touch a fixture whose map is live: the change is flagged, and applies once nothing is played', async () => {
    const code = (await linkedSet(svc.rest, token, 9102))!.groupCode;
    const { socket, ack } = await replayObserver(svc.ingest, replay, { key: AUTH_KEY, groupCode: code, leftTeam: { name: WOLVES.name, tricode: 'HW', url: '', attackStart: true }, rightTeam: { name: OWLS.name, tricode: 'CO', url: '', attackStart: false } });
    expect(ack.value).toBe(true);
    await sendRecords(socket, replay, { pace: 'instant', groupCode: code, to: LAST_ROSTER + 1 });
    await expect.poll(async () => ((await fixture(svc.rest, token, code)) as unknown as { status: string }).status, { timeout: 10_000 }).toBe('live');
    event.sets[1].entrants[0] = { ...STORM };
    await readNow();
    const flagged = await linkedSet(svc.rest, token, 9102);
    expect(flagged).toMatchObject({ flags: ['bracket_changed'], change: `team 1: ${WOLVES.name} → ${STORM.name}`, entrantIds: ['501', '502'] });
    expect(((await fixture(svc.rest, token, code)) as unknown as Teams)!.teams.map((t) => t.name)).toEqual([WOLVES.name, OWLS.name]);
    expect(svc.logged({ msg: 'bracket match changed while its series is being played: fixture kept, flagged', groupCode: code })).toHaveLength(1);
    await readNow(); // read again: still flagged, logged once
    expect((await linkedSet(svc.rest, token, 9102))!.flags).toEqual(['bracket_changed']);
    expect(svc.logged({ msg: 'bracket match changed while its series is being played: fixture kept, flagged', groupCode: code })).toHaveLength(1);
    // The operator ends the map (no result): nothing is being played, the bracket's change applies.
    expect((await svc.admin.end(code)).status).toBe(200);
    await expect.poll(async () => ((await fixture(svc.rest, token, code)) as unknown as { status: string }).status, { timeout: 10_000 }).toBe('upcoming');
    await readNow();
    expect(await linkedSet(svc.rest, token, 9102)).toMatchObject({ flags: [], change: '', entrantIds: ['520', '502'], teams: [STORM.name, OWLS.name] });
  }, 30_000);

  it('shows why a bracket cannot be read (a wrong token, an unknown event) and backs off', async () => {
    const wrong = await linkBracket(svc.rest, token, { url: 'tournament/autumn-cup-2026/event/valorant-main', token: 'not-the-organisers-token' });
    const unknown = await linkBracket(svc.rest, token, { url: 'tournament/nobody/event/nothing', token: SG_TOKEN, mode: 'confirm' });
    const sync = async (id: unknown) => (await brackets(svc.rest, token)).links.find((l) => l.id === id)?.sync;
    const wrongId = (wrong.body.link as { id: string }).id;
    const unknownId = (unknown.body.link as { id: string }).id;
    await expect.poll(async () => (await sync(wrongId))?.lastError, { timeout: 10_000 }).toBe('start.gg answered HTTP 401');
    await expect.poll(async () => (await sync(unknownId))?.lastError, { timeout: 10_000 }).toBe('start.gg has no event tournament/nobody/event/nothing (or the token may not read it)');
    const s = (await sync(wrongId))!;
    expect(s.nextSyncAt! - Date.now()).toBeLessThanOrEqual(1000 + 50); // BRACKETS_RETRY_MAX_MS caps the back-off
    // Its report mode changed: Bearer only; a bad mode, an unknown link refused.
    const put = (id: string, body: string, auth = true) => fetch(`${svc.rest}/admin/brackets/${id}`, { method: 'PUT', headers: { ...(auth ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json' }, body });
    expect((await put(wrongId, '{"mode":"confirm"}', false)).status).toBe(401);
    expect((await put(wrongId, '{"mode":"later"}')).status).toBe(400);
    expect((await put('lnk_000000000000', '{"mode":"confirm"}')).status).toBe(404);
    const changed = await put(wrongId, '{"mode":"confirm"}');
    expect(changed.status).toBe(200);
    expect(((await changed.json()) as { link: { mode: string } }).link.mode).toBe('confirm');
    expect((await brackets(svc.rest, token)).links.find((l) => l.id === wrongId)?.mode).toBe('confirm');
    // Unlinked: gone from the list; its fixtures (none here) would stay.
    expect((await fetch(`${svc.rest}/admin/brackets/${wrongId}/delete`, { method: 'POST' })).status).toBe(401);
    expect((await fetch(`${svc.rest}/admin/brackets/${wrongId}/delete`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    expect((await brackets(svc.rest, token)).links.map((l) => l.id)).not.toContain(wrongId);
    expect(sg.invalid()).toEqual([]);
  }, 20_000);
});
