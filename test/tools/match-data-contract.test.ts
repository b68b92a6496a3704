// The match_data contract for overlay developers: the published JSON Schema (served and committed,
// with generated TypeScript types that are current), every frame of the recorded match valid
// against it and still carrying every member docs/client-contract.md 5.4 says the overlay needs, `serverTime`
// in every frame, and GET /match/:groupCode returning exactly the frame an overlay receives.
import fs from 'node:fs';
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateContract, CONTRACT_DIR, SCHEMA_FILE, TYPES_FILE } from '../../src/tools/contract.js';
import { Match } from '../../src/workers/match/match.js';
import { serializeMatch } from '../../src/workers/match/serialize.js';
import { closeAll, overlay } from '../helpers/clients.js';
import { recordedMatch, replayObserver, sendRecords } from '../helpers/recorded.js';
import { startTestService, type TestService } from '../helpers/service.js';

const replay = recordedMatch();

const COMMITTED_SCHEMA = fs.readFileSync(path.join(CONTRACT_DIR, SCHEMA_FILE), 'utf8');

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Every member docs/client-contract.md 5.4 marks "required" (the overlay stops rendering without it) or "errors"
 * (console TypeErrors on every update); returns what is missing, [] when the frame is fine.
 */
function missingFor54(f: Obj): string[] {
  const out: string[] = [];
  const need = (ok: boolean, what: string) => { if (!ok) out.push(what); };
  need(Array.isArray(f.teams) && f.teams.length === 2, 'teams: array of exactly 2');
  for (const [i, team] of (Array.isArray(f.teams) ? f.teams : []).entries()) {
    need(isObj(team) && Array.isArray(team.players), `teams[${i}].players`);
    for (const [j, p] of (isObj(team) && Array.isArray(team.players) ? team.players : []).entries()) {
      need(isObj(p) && typeof p.fullName === 'string', `teams[${i}].players[${j}].fullName`);
      if (isObj(p) && p.maxUltPoints !== 0) {
        const aux = p.auxiliaryAvailable;
        need(isObj(aux) && typeof aux.health === 'boolean' && typeof aux.abilities === 'boolean', `teams[${i}].players[${j}].auxiliaryAvailable`);
      }
    }
  }
  const tools = f.tools;
  need(isObj(tools), 'tools');
  if (!isObj(tools)) return out;
  need(isObj(tools.seriesInfo) && Array.isArray(tools.seriesInfo.mapInfo), 'tools.seriesInfo.mapInfo');
  need(isObj(tools.seedingInfo), 'tools.seedingInfo');
  need(isObj(tools.sponsorInfo) && Array.isArray(tools.sponsorInfo.sponsors), 'tools.sponsorInfo.sponsors');
  const wm = tools.watermarkInfo;
  need(isObj(wm) && 'spectraWatermark' in wm && 'customTextEnabled' in wm && 'customText' in wm, 'tools.watermarkInfo');
  need(isObj(tools.nameOverrides) && 'overrides' in tools.nameOverrides, 'tools.nameOverrides.overrides');
  if (f.roundPhase === 'combat') need(isObj(f.spikeState), 'spikeState (combat)');
  const ti = tools.tournamentInfo;
  need(isObj(ti) && typeof ti.logoUrl === 'string' && typeof ti.backdropUrl === 'string', 'tools.tournamentInfo');
  const tc = tools.timeoutCounter;
  need(isObj(tc) && 'max' in tc && 'left' in tc && 'right' in tc, 'tools.timeoutCounter');
  need(isObj(tools.playercamsInfo) && 'enable' in tools.playercamsInfo, 'tools.playercamsInfo.enable');
  const rwb = tools.roundWinBox;
  need(isObj(rwb) && typeof rwb.type === 'string' && Array.isArray(rwb.sponsors), 'tools.roundWinBox');
  if (isObj(rwb) && rwb.type !== 'disabled' && Array.isArray(rwb.sponsors)) {
    for (const [k, s] of rwb.sponsors.entries()) need(isObj(s) && Array.isArray(s.roundCeremonie), `tools.roundWinBox.sponsors[${k}].roundCeremonie`);
  }
  const ts = f.timeoutState;
  need(isObj(ts) && ['techPause', 'leftTeam', 'rightTeam', 'timeRemaining'].every((k) => k in ts), 'timeoutState');
  return out;
}

function compile(schemaText: string): ValidateFunction {
  return new Ajv({ allErrors: true, allowUnionTypes: true, strict: true }).compile(JSON.parse(schemaText) as object);
}

describe('the published contract', () => {
  it('the committed schema and TypeScript types are what `npm run contract` generates', () => {
    const generated = generateContract();
    expect(COMMITTED_SCHEMA).toBe(generated[SCHEMA_FILE]);
    expect(fs.readFileSync(path.join(CONTRACT_DIR, TYPES_FILE), 'utf8')).toBe(generated[TYPES_FILE]);
    const schema = JSON.parse(COMMITTED_SCHEMA) as { $schema: string; required: string[]; properties: Record<string, { type: string }> };
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema.required).toContain('serverTime');
    expect(schema.properties.serverTime.type).toBe('number');
    expect(generated[TYPES_FILE]).toContain('  serverTime: number;');
  });

  it('every state of the recorded match, serialized as the shard does, is valid and has what docs/client-contract.md 5.4 needs', () => {
    const validate = compile(COMMITTED_SCHEMA);
    const h = replay.header;
    const m = Match.create({ groupCode: h.groupCode, leftTeam: h.leftTeam as never, rightTeam: h.rightTeam as never, organizationId: '', isSupporter: false }, Number(replay.records[0].timestamp), { sponsorLogoUrl: 'https://logo.example/l.webp' });
    let checked = 0;
    const phases = new Set<string>();
    for (const rec of replay.records) {
      const ts = Number(rec.timestamp);
      m.advance(ts);
      expect(m.apply(rec, ts).ok).toBe(true);
      const frame = JSON.parse(serializeMatch(m, ts)) as Obj;
      if (!validate(frame)) throw new Error(`record ${checked}: ${JSON.stringify(validate.errors?.slice(0, 3))}`);
      const missing = missingFor54(frame);
      if (missing.length > 0) throw new Error(`record ${checked}: missing ${missing.join(', ')}`);
      expect(frame.serverTime).toBe(ts);
      phases.add(frame.roundPhase as string);
      checked++;
    }
    expect(checked).toBe(replay.records.length);
    expect([...phases].sort()).toEqual(['combat', 'end', 'game_end', 'game_start', 'shopping'].concat(phases.has('LOBBY') ? ['LOBBY'] : []).sort());
  });

  it('a supporter match with the agent-select hotkey: every frame valid, with its economy record and agent-select flags', () => {
    const validate = compile(COMMITTED_SCHEMA);
    const h = replay.header;
    const toolsData = { ...(h.toolsData as object | undefined), agentSelectHotkeyEnabled: true };
    const m = Match.create({ groupCode: h.groupCode, leftTeam: h.leftTeam as never, rightTeam: h.rightTeam as never, toolsData, organizationId: 'org', isSupporter: true }, Number(replay.records[0].timestamp), { sponsorLogoUrl: 'x' });
    const active = new Set<boolean>();
    let frame: Obj = {};
    replay.records.forEach((rec, i) => {
      const ts = Number(rec.timestamp);
      expect(m.apply(rec, ts).ok).toBe(true);
      if (i === 30) expect(m.apply({ ...rec, type: 'toggle_agent_select', data: true }, ts).ok).toBe(true);
      frame = JSON.parse(serializeMatch(m, ts)) as Obj;
      if (!validate(frame)) throw new Error(`record ${i}: ${JSON.stringify(validate.errors?.slice(0, 3))}`);
      active.add((frame.tools as Obj).agentSelectActive as boolean);
    });
    expect([...active].sort()).toEqual([false, true]);
    expect((frame.tools as Obj).agentSelectAutostart).toBe(false);
    const records = (frame.teams as Obj[]).map((t) => t.moneyRecord as Obj[]);
    expect(records.map((r) => r.length)).toEqual([19, 19]);
    expect(records[0][0]).toEqual({ round: 1, start: 4000, spent: 3750 });
  });

  it('the schema refuses a frame without serverTime or with a wrong type (it is not vacuous)', () => {
    const validate = compile(COMMITTED_SCHEMA);
    const h = replay.header;
    const m = Match.create({ groupCode: h.groupCode, leftTeam: h.leftTeam as never, rightTeam: h.rightTeam as never, organizationId: '', isSupporter: false }, 1, { sponsorLogoUrl: 'x' });
    const frame = JSON.parse(serializeMatch(m, 1723602005093)) as Obj;
    expect(validate(frame)).toBe(true);
    expect(validate({ ...frame, serverTime: undefined })).toBe(false);
    expect(validate({ ...frame, serverTime: '1723602005093' })).toBe(false);
    expect(validate({ ...frame, teams: [(frame.teams as unknown[])[0]] })).toBe(false);
    expect(validate({ ...frame, unknownMember: 1 })).toBe(false);
    const teams = frame.teams as Obj[];
    const withRecord = (entry: unknown) => ({ ...frame, teams: [{ ...teams[0], moneyRecord: [entry] }, teams[1]] });
    expect(validate(withRecord({ round: 1, start: 4000, spent: 0 }))).toBe(true);
    expect(validate(withRecord({ round: 1, start: 4000 }))).toBe(false);
    expect(validate(withRecord({ round: 1, start: '4000', spent: 0 }))).toBe(false);
    expect(validate({ ...frame, teams: [{ ...teams[0], moneyRecord: undefined }, teams[1]] })).toBe(false);
    const tools = frame.tools as Obj;
    expect(validate({ ...frame, tools: { ...tools, agentSelectActive: undefined } })).toBe(false);
    expect(validate({ ...frame, tools: { ...tools, agentSelectAutostart: 'true' } })).toBe(false);
  });
});

describe('served by the running service', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ AUTH_KEY: 'contract-key' });
  });
  afterAll(async () => {
    closeAll();
    await svc?.close();
  });

  it('GET /schema/match_data.json is the committed schema', async () => {
    const res = await fetch(`${svc.rest}/schema/match_data.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/schema+json; charset=utf-8');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(await res.text()).toBe(COMMITTED_SCHEMA);
  });

  it('GET /match/:groupCode: 404 unknown; the exact frame an overlay receives; every received frame valid with a numeric serverTime', async () => {
    const code = 'CNTRCT';
    const unknown = await fetch(`${svc.rest}/match/${code}`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: 'Match not found' });

    const validate = compile(await (await fetch(`${svc.rest}/schema/match_data.json`)).text());
    const fe = await overlay(svc.broadcast, code);
    const polling = await overlay(svc.broadcast, code, ['polling']);
    const { socket: obs, ack } = await replayObserver(svc.ingest, replay, { key: 'contract-key', groupCode: code });
    try {
      expect(ack.value).toBe(true);
      await sendRecords(obs, replay, { pace: 'instant', groupCode: code, to: 1500 });
      await fe.waitFor((f) => (f.teams as Array<{ roundsWon: number }>).map((t) => t.roundsWon).join('-') === '2-7'); // score at record 1361
      // Settled: the shard applied all 1500 records (ods_messages_applied_total, reported once a
      // second); then the REST answer must be the last frame both overlays received (long-polling
      // too), byte for byte.
      await expect.poll(() => svc.metric('ods_messages_applied_total'), { timeout: 20_000 }).toBe(1500);
      let res: Response | undefined;
      let text = '';
      await expect.poll(async () => {
        res = await fetch(`${svc.rest}/match/${code}`);
        text = await res.text();
        return [text === fe.raw.at(-1), text === polling.raw.at(-1)];
      }, { timeout: 20_000 }).toEqual([true, true]);
      expect(res!.status).toBe(200);
      expect(res!.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res!.headers.get('cache-control')).toBe('no-store');
      expect(text).toBe(fe.raw.at(-1));
      expect(polling.raw.at(-1)).toBe(text); // long-polling overlays get the same text

      for (const [i, raw] of fe.raw.entries()) {
        const frame = JSON.parse(raw) as Obj;
        if (!validate(frame)) throw new Error(`frame ${i}: ${JSON.stringify(validate.errors?.slice(0, 3))}`);
        expect(missingFor54(frame)).toEqual([]);
        expect(typeof frame.serverTime).toBe('number');
      }
      // serverTime follows the wall clock from frame to frame. It is the shard thread's clock, so it
      // is compared with itself only, never with this test's Date.now() (the logon frame is stamped
      // before this test even has the logon ack): a match sends at most one frame per broadcast
      // interval, so each frame's serverTime is later than the one before.
      const times = fe.frames.map((f) => f.serverTime as number);
      expect([...times].sort((a, b) => a - b)).toEqual(times);
      expect(new Set(times).size).toBe(times.length);

      await sendRecords(obs, replay, { pace: 'instant', groupCode: code, from: 1500 });
      await fe.waitFor((f) => f.roundPhase === 'game_end', 15_000);
      await expect.poll(async () => (await fetch(`${svc.rest}/match/${code}`)).status).toBe(404); // removed after game_end
    } finally {
      obs.close();
    }
  }, 60_000);
});
