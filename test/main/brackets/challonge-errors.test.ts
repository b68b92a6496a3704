// What Challonge refuses, through the service (docs/brackets.md, "Challonge", "Errors"): a tournament
// linked with a key that may read it but not change it (a viewer's: Challonge permits GETs for any
// tournament) is scheduled, but its report is answered 401 with Challonge's `{ "errors": [...] }`,
// which the match's state and exchanges show, and is sent again (backing off) without end; a match
// the organiser sends back to pending on Challonge while its series is played is flagged, and its
// next report's 422 is shown; a tournament Challonge does not have shows its 404 on the link.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../helpers/service.js';
import { ChallongeStandin, type ChTournament } from '../../helpers/challonge.js';
import { brackets, linkBracket, linkedSet } from '../../helpers/brackets.js';

const OWNER = 'owner-key-errors-0123456789abcdef012345';
const VIEWER = 'viewer-key-errors-0123456789abcdef01234';

const cup = (id: number, url: string, match: number): ChTournament => ({
  id, url, name: `Cup ${url}`,
  participants: [{ id: id * 10 + 1, name: 'Quiet Storm' }, { id: id * 10 + 2, name: 'Tidebreakers' }],
  matches: [{ id: match, round: 1, identifier: 'A', state: 'open', player1_id: id * 10 + 1, player2_id: id * 10 + 2 }],
});

describe('what Challonge refuses, through the service', () => {
  let ch: ChallongeStandin;
  let svc: TestService;
  let token: string;
  const result = (code: string, n: number, scores: [number, number]) =>
    fetch(`${svc.rest}/admin/fixtures/${code}/results/${n}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ scores }) });

  beforeAll(async () => {
    ch = await ChallongeStandin.start([OWNER], [VIEWER]);
    ch.tournaments.push(cup(501, 'viewed_cup', 5011), cup(502, 'reset_cup', 5021));
    svc = await startTestService({ AUTH_KEY: 'CHALLONGE-ERRORS-KEY', CHALLONGE_API_URL: ch.url, BRACKETS_POLL_MS: '500', BRACKETS_RETRY_MS: '100', BRACKETS_RETRY_MAX_MS: '400' });
    token = svc.admin.token;
  }, 30_000);

  afterAll(async () => {
    await svc?.close();
    await ch?.close();
  });

  it('a viewer\'s key: scheduled, its report refused with Challonge\'s 401 errors shown, sent again', async () => {
    expect((await linkBracket(svc.rest, token, { platform: 'challonge', url: 'https://challonge.com/viewed_cup', token: VIEWER })).status).toBe(201);
    await expect.poll(() => linkedSet(svc.rest, token, 5011), { timeout: 10_000 }).toBeDefined();
    const code = (await linkedSet(svc.rest, token, 5011))!.groupCode;
    expect((await result(code, 1, [13, 4])).status).toBe(200);
    const refused = 'Challonge answered HTTP 401: Unauthorized (Invalid API key or insufficient permissions)';
    await expect.poll(async () => (await linkedSet(svc.rest, token, 5011))?.report, { timeout: 10_000 }).toMatchObject({ state: 'retrying', lastError: refused });
    await expect.poll(async () => (await linkedSet(svc.rest, token, 5011))!.report.failures, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    const one = await (await fetch(`${svc.rest}/admin/brackets/sets/${code}`, { headers: { authorization: `Bearer ${token}` } })).json() as { report: { exchanges: Array<{ operation: string; ok: boolean; sent: Record<string, unknown>; answer: string }> } };
    expect(one.report.exchanges[0]).toMatchObject({ operation: 'updateMatch', ok: false, sent: { tournament: 'viewed_cup', matchId: '5011', 'match[scores_csv]': '13-4' }, answer: refused });
    expect(svc.logged({ msg: 'bracket report not taken (sent again later)', groupCode: code, answer: refused }).length).toBeGreaterThan(0);
    expect(ch.match(5011).scores_csv).toBeUndefined(); // nothing changed on Challonge
    const puts = ch.received.filter((r) => r.method === 'PUT' && r.path.endsWith('/5011.json'));
    expect(puts.length).toBeGreaterThanOrEqual(3);
    expect(puts.every((r) => r.status === 401 && r.answered.length === 1)).toBe(true);
  }, 30_000);

  it('a match sent back to pending while its series is played: flagged, its report\'s 422 shown; a tournament Challonge does not have: its 404 on the link', async () => {
    expect((await linkBracket(svc.rest, token, { platform: 'challonge', url: 'reset_cup', token: OWNER })).status).toBe(201);
    await expect.poll(() => linkedSet(svc.rest, token, 5021), { timeout: 10_000 }).toBeDefined();
    const code = (await linkedSet(svc.rest, token, 5021))!.groupCode;
    expect((await result(code, 1, [13, 8])).status).toBe(200);
    await expect.poll(() => ch.match(5021).scores_csv, { timeout: 10_000 }).toBe('13-8');
    // The organiser resets the match on Challonge (an earlier match reopened): pending, one player gone.
    Object.assign(ch.match(5021), { state: 'pending', player2_id: null, scores_csv: '' });
    await expect.poll(async () => (await linkedSet(svc.rest, token, 5021))?.flags, { timeout: 10_000 }).toEqual(['set_dropped']);
    expect((await result(code, 2, [9, 13])).status).toBe(200);
    const notOpen = 'Challonge answered HTTP 422: The match is not open: its players are not known yet';
    await expect.poll(async () => (await linkedSet(svc.rest, token, 5021))?.report.lastError, { timeout: 10_000 }).toBe(notOpen);

    expect((await linkBracket(svc.rest, token, { platform: 'challonge', url: 'https://challonge.com/no_such_cup', token: OWNER })).status).toBe(201);
    const notFound = 'Challonge answered HTTP 404: Tournament not found within your account scope';
    await expect.poll(async () => (await brackets(svc.rest, token)).links.find((l) => l.name === '' && l.sync?.lastError)?.sync, { timeout: 10_000 }).toMatchObject({ lastError: notFound });
    await expect.poll(async () => (await brackets(svc.rest, token)).links.find((l) => l.sync?.lastError === notFound)!.sync!.errors, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);

    expect(ch.invalid()).toEqual([]);
    for (const key of [OWNER, VIEWER]) {
      expect(svc.logs.join('\n')).not.toContain(key);
      expect(JSON.stringify(await brackets(svc.rest, token))).not.toContain(key);
    }
  }, 30_000);
});
