// GET /feeds/:groupCode/<name> (README "Feeds for graphics systems"): the recorded match played by a
// real observer; the scoreboard and players feeds in JSON, CSV and XML parsed with independent
// parsers (csv-parse, fast-xml-parser), agreeing with each other and with the frame every overlay
// received; 304 on a repeat poll; no key or secret in any of them; 404 { error } for an unknown code.
import { parse as parseCsv } from 'csv-parse/sync';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { escapeXml } from '../../../src/main/feeds/formats.js';
import { matchesEtag } from '../../../src/main/feeds/cache.js';
import { clockSeconds, clockText } from '../../../src/main/feeds/tables.js';
import { overlay, type Overlay } from '../../helpers/clients.js';
import { recordedMatch, replayObserver, sendRecords } from '../../helpers/recorded.js';
import { serviceForFile } from '../../helpers/service.js';
import { Match } from '../../../src/workers/match/match.js';
import { serializeMatch } from '../../../src/workers/match/serialize.js';

const KEY = 'feeds-key';
const replay = recordedMatch();
// Replayed with the recorded clock: the scoreboard's clock is the frame's own time (exact).
const svc = serviceForFile({ AUTH_KEY: KEY, TRUST_REPLAY_TIMESTAMPS: 'true' });

type Obj = Record<string, unknown>;
type Flat = Record<string, string | number | boolean | null>;
const FEEDS = ['scoreboard', 'players'] as const;

const xmlParser = new XMLParser({ parseTagValue: false, isArray: (name) => name === 'row', ignoreDeclaration: true });

/** The three forms of a feed, each parsed; the JSON rows also as strings (what CSV and XML carry). */
async function feedForms(code: string, feed: string): Promise<{ json: Flat[]; csv: Obj[]; xml: Obj[]; etags: string[] }> {
  const get = async (suffix: string, type: string) => {
    const res = await fetch(`${svc.rest}/feeds/${code}/${feed}${suffix}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(type);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    return { text: await res.text(), etag: res.headers.get('etag') ?? '' };
  };
  const json = await get('', 'application/json; charset=utf-8');
  const csv = await get('.csv', 'text/csv; charset=utf-8');
  const xml = await get('?format=xml', 'application/xml; charset=utf-8');
  expect(XMLValidator.validate(xml.text)).toBe(true);
  const xmlDoc = xmlParser.parse(xml.text) as Record<string, { row?: Obj[] } | ''>;
  const root = xmlDoc[feed];
  return {
    json: JSON.parse(json.text) as Flat[],
    csv: parseCsv(csv.text, { columns: true }) as Obj[],
    xml: root === '' ? [] : (root.row ?? []).map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === '' || v === undefined ? '' : v]))),
    etags: [json.etag, csv.etag, xml.etag],
  };
}

const asText = (row: Flat): Obj => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v === null ? '' : String(v)]));

/** The three forms hold the same flat rows. */
function expectAgree(forms: Awaited<ReturnType<typeof feedForms>>): void {
  expect(Array.isArray(forms.json)).toBe(true);
  for (const row of forms.json) {
    expect(typeof row === 'object' && row !== null && !Array.isArray(row)).toBe(true);
    for (const v of Object.values(row)) expect(v === null || ['string', 'number', 'boolean'].includes(typeof v)).toBe(true);
  }
  expect(forms.csv).toEqual(forms.json.map(asText));
  expect(forms.xml).toEqual(forms.json.map(asText));
  expect(new Set(forms.etags).size).toBe(3);
}

/**
 * The recording's own state after its first `to` records, played into the engine here (as the
 * contract test does): what the overlay's frame must show once the service applied them.
 */
function landmarks(to: number, leftName?: string): string {
  const h = replay.header as { groupCode: string; leftTeam: Obj; rightTeam: Obj };
  const m = Match.create({ groupCode: h.groupCode, leftTeam: (leftName ? { ...h.leftTeam, name: leftName } : h.leftTeam) as never, rightTeam: h.rightTeam as never, organizationId: '', isSupporter: false }, Number(replay.records[0].timestamp), { sponsorLogoUrl: 'x' });
  let ts = 0;
  for (const rec of replay.records.slice(0, to)) {
    ts = Number(rec.timestamp);
    m.advance(ts);
    m.apply(rec, ts);
  }
  return landmarkOf(JSON.parse(serializeMatch(m, ts)) as Obj);
}

/** What identifies a state of the recorded match: round, phase, score, spike, every player's counters and credits. */
function landmarkOf(f: Obj): string {
  const teams = f.teams as TeamF[];
  return JSON.stringify([f.roundNumber, f.roundPhase, f.spikeState, f.spikeDetonationTime ?? null, f.roundTimeoutTime ?? null,
    teams.map((t) => [t.teamName, t.roundsWon, t.players.map((p) => [p.name, p.kills, p.deaths, p.assists, p.money, p.isAlive, p.currUltPoints])])]);
}

/**
 * Plays records [from, to) and waits until the overlay received the frame of the recording's state
 * after them, and that it is the match's latest (GET /match).
 */
async function playTo(obs: Parameters<typeof sendRecords>[0], fe: Overlay, code: string, from: number, to: number, leftName?: string): Promise<Obj> {
  const expected = landmarks(to, leftName);
  await sendRecords(obs, replay, { pace: 'instant', groupCode: code, from, to });
  const frame = await fe.waitFor((f) => landmarkOf(f) === expected, 30_000);
  await expect.poll(async () => (await (await fetch(`${svc.rest}/match/${code}`)).text()) === fe.raw.at(-1), { timeout: 20_000 }).toBe(true);
  expect(landmarkOf(JSON.parse(fe.raw.at(-1)!) as Obj)).toBe(expected);
  return frame;
}

interface TeamF { teamName: string; teamTricode: string; roundsWon: number; isAttacking: boolean; players: Obj[] }

function expectScoreboard(row: Flat, f: Obj): void {
  const teams = f.teams as TeamF[];
  const spike = f.spikeState as Obj;
  expect(row).toMatchObject({
    groupCode: f.groupCode, map: f.map, roundNumber: f.roundNumber, roundPhase: f.roundPhase, isRunning: f.isRunning,
    leftName: teams[0].teamName, leftTricode: teams[0].teamTricode, leftScore: teams[0].roundsWon, leftSide: teams[0].isAttacking ? 'attack' : 'defense',
    rightName: teams[1].teamName, rightTricode: teams[1].teamTricode, rightScore: teams[1].roundsWon, rightSide: teams[1].isAttacking ? 'attack' : 'defense',
    leftAlive: teams[0].players.filter((p) => p.isAlive).length, rightAlive: teams[1].players.filter((p) => p.isAlive).length,
    spikePlanted: spike.planted, spikeDefused: spike.defused, spikeDetonated: spike.detonated,
  });
  const deadline = (f.spikeDetonationTime ?? f.roundTimeoutTime) as number | undefined;
  const seconds = deadline === undefined ? null : Math.max(0, Math.ceil((deadline - (f.serverTime as number)) / 1000));
  expect(row.timerSeconds).toBe(seconds);
  expect(row.timerKind).toBe(f.spikeDetonationTime !== undefined ? 'spike' : f.roundTimeoutTime !== undefined ? 'round' : '');
  if (seconds !== null) expect(row.timer).toBe(`${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`);
}

function expectPlayers(rows: Flat[], f: Obj): void {
  const expected = (f.teams as TeamF[]).flatMap((t, i) => t.players.map((p) => ({
    team: i === 0 ? 'left' : 'right', teamTricode: t.teamTricode, name: p.name, agent: p.agentProper,
    kills: p.kills, deaths: p.deaths, assists: p.assists, kda: `${p.kills as number}/${p.deaths as number}/${p.assists as number}`,
    credits: p.money, alive: p.isAlive, ultPoints: p.currUltPoints, ultMax: p.maxUltPoints, ultReady: p.ultReady,
  })));
  expect(rows).toHaveLength(10);
  expect(rows.map((r) => ({
    team: r.team, teamTricode: r.teamTricode, name: r.name, agent: r.agent, kills: r.kills, deaths: r.deaths, assists: r.assists, kda: r.kda,
    credits: r.credits, alive: r.alive, ultPoints: r.ultPoints, ultMax: r.ultMax, ultReady: r.ultReady,
  }))).toEqual(expected);
}

describe('GET /feeds/:groupCode/<name>', () => {
  it('404 { error } for an unknown group code (every feed and format), an unknown feed; 400 for a bad format', async () => {
    for (const path of ['/feeds/NOSUCH/scoreboard', '/feeds/NOSUCH/players.csv', '/feeds/NOSUCH/players?format=xml']) {
      const res = await fetch(svc.rest + path);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: 'Match not found' });
    }
    const unknownFeed = await fetch(`${svc.rest}/feeds/NOSUCH/weather`);
    expect(unknownFeed.status).toBe(404);
    expect(await unknownFeed.json()).toEqual({ error: 'Feed not found', feeds: ['scoreboard', 'players'] });
    for (const [path, error] of [
      ['/feeds/NOSUCH/players.pdf', 'Unknown format: json, csv or xml'],
      ['/feeds/NOSUCH/players?format=yaml', 'Unknown format: json, csv or xml'],
      ['/feeds/NOSUCH/players.csv?format=xml', 'The extension and the format parameter differ'],
      ['/feeds/%ZZ/players', 'Invalid group code'],
    ]) {
      const res = await fetch(svc.rest + path);
      expect(res.status, path).toBe(400);
      expect(await res.json()).toEqual({ error });
    }
  });

  it('the recorded match: three formats that parse and agree with the overlay\'s frame, 304 on a repeat poll, a new ETag once the match moves on', { timeout: 120_000 }, async () => {
    const code = 'FEEDS1';
    const fe = await overlay(svc.broadcast, code);
    const { socket: obs, ack } = await replayObserver(svc.ingest, replay, { key: KEY, groupCode: code });
    expect(ack.value).toBe(true);
    const secret = String(ack.reason);

    // Round 7 with the spike planted (record 1000: the spike's clock runs).
    let frame = await playTo(obs, fe, code, 0, 1001);
    expect(frame.spikeDetonationTime).toBeTypeOf('number');
    const sb1 = await feedForms(code, 'scoreboard');
    expectAgree(sb1);
    expect(sb1.json).toHaveLength(1);
    expectScoreboard(sb1.json[0], frame);
    expect(sb1.json[0]).toMatchObject({ roundNumber: 7, leftScore: 1, rightScore: 5, spikePlanted: true, timerKind: 'spike' });
    const pl1 = await feedForms(code, 'players');
    expectAgree(pl1);
    expectPlayers(pl1.json, frame);

    // A repeat poll with the ETag: 304, no body, the same ETag; a weak or listed form matches too.
    for (const [i, suffix] of ['', '.csv', '.xml'].entries()) {
      for (const header of [sb1.etags[i], `W/${sb1.etags[i]}`, `"other", ${sb1.etags[i]}`]) {
        const res = await fetch(`${svc.rest}/feeds/${code}/scoreboard${suffix}`, { headers: { 'If-None-Match': header } });
        expect(res.status).toBe(304);
        expect(res.headers.get('etag')).toBe(sb1.etags[i]);
        // The headers a 200 would carry for the cache and a browser's overlay (RFC 9110 15.4.5).
        expect([res.headers.get('cache-control'), res.headers.get('access-control-allow-origin'), res.headers.get('access-control-expose-headers')]).toEqual(['no-cache', '*', 'ETag']);
        expect(await res.text()).toBe('');
      }
    }
    // The exact ETag of an extension's feed (no query) is answered before the router copies the
    // request (feeds/rest.ts, `early`); asked by the format parameter, the same 304 the route's way.
    const byQuery = await fetch(`${svc.rest}/feeds/${code}/scoreboard?format=csv`, { headers: { 'If-None-Match': sb1.etags[1] } });
    expect([byQuery.status, byQuery.headers.get('etag'), byQuery.headers.get('cache-control'), byQuery.headers.get('access-control-allow-origin')]).toEqual([304, sb1.etags[1], 'no-cache', '*']);
    const other = await fetch(`${svc.rest}/feeds/${code}/players`, { headers: { 'If-None-Match': sb1.etags[0] } });
    expect(other.status).toBe(200); // another feed's ETag is not this one's

    // On to round 10's combat (the recording's score 2-7; the round's clock runs).
    frame = await playTo(obs, fe, code, 1001, 1500);
    const sb2 = await feedForms(code, 'scoreboard');
    expectAgree(sb2);
    expectScoreboard(sb2.json[0], frame);
    expect(sb2.json[0]).toMatchObject({ roundNumber: 10, roundPhase: 'combat', leftScore: 2, rightScore: 7, spikePlanted: false, timerKind: 'round' });
    const pl2 = await feedForms(code, 'players');
    expectAgree(pl2);
    expectPlayers(pl2.json, frame);
    const stale = await fetch(`${svc.rest}/feeds/${code}/scoreboard`, { headers: { 'If-None-Match': sb1.etags[0] } });
    expect(stale.status).toBe(200);
    expect(stale.headers.get('etag')).toBe(sb2.etags[0]);
    expect(sb2.etags[0]).not.toBe(sb1.etags[0]);

    // No key, no secret, in any feed.
    for (const feed of FEEDS) {
      for (const suffix of ['', '.csv', '.xml']) {
        const body = await (await fetch(`${svc.rest}/feeds/${code}/${feed}${suffix}`)).text();
        expect(body).not.toContain(KEY);
        expect(body).not.toContain(secret);
      }
    }
    obs.close();
  });

  it('team names with markup and CSV delimiters come back unchanged through CSV and XML', { timeout: 60_000 }, async () => {
    const code = 'FEEDS2';
    const name = 'Q&A <"Bros"> \'x\', ; ]]>';
    const h = replay.header as { leftTeam: Obj };
    const fe = await overlay(svc.broadcast, code);
    const { socket: obs, ack } = await replayObserver(svc.ingest, replay, { key: KEY, groupCode: code, leftTeam: { ...h.leftTeam, name } });
    expect(ack.value).toBe(true);
    const frame = await playTo(obs, fe, code, 0, 200, name);
    const sb = await feedForms(code, 'scoreboard');
    expectAgree(sb);
    expect(sb.json[0].leftName).toBe(name);
    expect(sb.csv[0].leftName).toBe(name);
    expect(sb.xml[0].leftName).toBe(name);
    expectScoreboard(sb.json[0], frame);
    obs.close();
  });
});

describe('the feeds\' small parts', () => {
  it('escapeXml: markup as entities, characters XML 1.0 cannot hold dropped, the rest kept', () => {
    expect(escapeXml('a&b<c>d"e\'f')).toBe('a&amp;b&lt;c&gt;d&quot;e&apos;f');
    expect(escapeXml('x\u0000y\u0007z\u001F\uFFFE')).toBe('xyz');
    expect(escapeXml('tab\there\nnew\rline')).toBe('tab\there\nnew\rline');
    expect(escapeXml('lone \uD800 high, lone \uDC00 low, pair \uD83D\uDE00')).toBe('lone  high, lone  low, pair \uD83D\uDE00');
    expect(XMLValidator.validate(`<a>${escapeXml('Ω < \u0001 & ]]> 🙂')}</a>`)).toBe(true);
  });

  it('matchesEtag: exact, weak, listed and *; not a prefix or another tag', () => {
    expect(matchesEtag('"abc"', '"abc"')).toBe(true);
    expect(matchesEtag('W/"abc"', '"abc"')).toBe(true);
    expect(matchesEtag('"x", "abc"', '"abc"')).toBe(true);
    expect(matchesEtag('*', '"abc"')).toBe(true);
    expect(matchesEtag('', '"abc"')).toBe(false);
    expect(matchesEtag('"ab"', '"abc"')).toBe(false);
    expect(matchesEtag('"abcd"', '"abc"')).toBe(false);
  });

  it('the clock: whole seconds left, rounded up, never below 0; m:ss; a team timeout as the frame counts it', () => {
    const round = { endsAt: 100_000, kind: 'round' as const, timeoutSeconds: 0 };
    expect(clockSeconds(round, 100_000 - 59_001)).toBe(60);
    expect(clockSeconds(round, 100_000 - 59_000)).toBe(59);
    expect(clockSeconds(round, 200_000)).toBe(0);
    expect(clockText(round, 65)).toBe('1:05');
    expect(clockText({ endsAt: null, kind: '', timeoutSeconds: 0 }, 0)).toBe('');
    expect(clockSeconds({ endsAt: null, kind: 'timeout', timeoutSeconds: 42 }, 1e12)).toBe(42);
  });
});
