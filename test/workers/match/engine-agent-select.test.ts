// Agent select on a hotkey (docs/match-rules.md 2.2 step 7, 4.17): `tools.agentSelectAutostart` from
// the logon's `toolsData.agentSelectHotkeyEnabled`, `tools.agentSelectActive` set by roster messages
// (autostart) and flipped by `toggle_agent_select`, over the recorded match and scripted.

import { describe, expect, it } from 'vitest';
import { Match } from '../../../src/workers/match/match.js';
import { serializeMatch } from '../../../src/workers/match/serialize.js';
import { loadReplay, logon, rosterAll, Script, SETTINGS, type ReplayRecord, watchAllMatches } from '../../helpers/engine.js';

watchAllMatches(); // the dirty-mark check on this file's Matches (helpers/serializer-check.ts)

const flags = (s: Script) => ({ autostart: s.state.tools.agentSelectAutostart, active: s.state.tools.agentSelectActive });

function withTools(toolsData: unknown): Script {
  return new Script(logon({ toolsData }));
}

describe('agent select flags at creation', () => {
  it('starts by itself without the flag, or with it false', () => {
    expect(flags(withTools(undefined))).toEqual({ autostart: true, active: false });
    expect(flags(withTools({}))).toEqual({ autostart: true, active: false });
    expect(flags(withTools({ agentSelectHotkeyEnabled: false }))).toEqual({ autostart: true, active: false });
  });

  it('waits for the hotkey with agentSelectHotkeyEnabled true; the input flag itself is not broadcast', () => {
    const s = withTools({ agentSelectHotkeyEnabled: true });
    expect(flags(s)).toEqual({ autostart: false, active: false });
    expect('agentSelectHotkeyEnabled' in s.state.tools).toBe(false);
    expect(serializeMatch(s.match, 1)).not.toContain('agentSelectHotkeyEnabled');
  });

  it('ignores a non-boolean flag and client values of the service-owned members, with warnings', () => {
    const m = Match.create(logon({ toolsData: { agentSelectHotkeyEnabled: 'yes', agentSelectActive: true, agentSelectAutostart: false } }), 1, SETTINGS);
    expect(m.liveState().tools.agentSelectAutostart).toBe(true);
    expect(m.liveState().tools.agentSelectActive).toBe(false);
    const warnings = m.takeEffects().filter((e) => e.kind === 'warn').map((e) => (e as { detail: string }).detail);
    expect(warnings).toEqual([
      'toolsData.agentSelectActive: set by the service, not by the client',
      'toolsData.agentSelectAutostart: set by the service, not by the client',
      'toolsData.agentSelectHotkeyEnabled: must be a boolean',
    ]);
  });
});

describe('roster and toggle_agent_select', () => {
  it('autostart: the first roster message activates agent select; the hotkey still flips it; the next roster sets it again', () => {
    const s = withTools(undefined);
    rosterAll(s);
    expect(flags(s)).toEqual({ autostart: true, active: true });
    s.ok('toggle_agent_select', true);
    expect(flags(s)).toEqual({ autostart: true, active: false });
    rosterAll(s);
    expect(flags(s)).toEqual({ autostart: true, active: true });
  });

  it('hotkey: roster messages leave it off; each toggle flips it and raises stateVersion', () => {
    const s = withTools({ agentSelectHotkeyEnabled: true });
    rosterAll(s);
    expect(flags(s)).toEqual({ autostart: false, active: false });
    const before = s.match.stateVersion;
    s.ok('toggle_agent_select', true);
    expect(flags(s)).toEqual({ autostart: false, active: true });
    expect(s.match.stateVersion).toBe(before + 1);
    s.ok('toggle_agent_select', true);
    expect(flags(s)).toEqual({ autostart: false, active: false });
  });

  it('is an observer type: an auxiliary session may not send it', () => {
    const s = withTools({ agentSelectHotkeyEnabled: true });
    rosterAll(s);
    expect(s.aux('a0', 'toggle_agent_select', true)).toMatchObject({ ok: false, reason: 'not_aux_type' });
    expect(flags(s).active).toBe(false);
  });
});

describe('agent select over the recorded match', () => {
  const replay = loadReplay();
  const h = replay.header;
  const create = (toolsData: unknown) =>
    Match.create({ groupCode: h.groupCode, leftTeam: h.leftTeam, rightTeam: h.rightTeam, toolsData, organizationId: '', isSupporter: false }, h.logStartTime, SETTINGS);
  const firstRoster = replay.records.findIndex((r) => r.type === 'roster');
  const matchStart = replay.records.findIndex((r) => r.type === 'match_start');

  /** The recording with the operator's hotkey pressed twice: after the 5th roster message and at match_start. */
  function withToggles(): ReplayRecord[] {
    const records = [...replay.records];
    const toggle = (at: number): ReplayRecord => ({ ...records[at], type: 'toggle_agent_select', data: true });
    records.splice(matchStart, 0, toggle(matchStart));
    records.splice(firstRoster + 5, 0, toggle(firstRoster + 5));
    return records;
  }

  it('autostart: active from the first roster message to the end, in every frame', () => {
    const m = create(h.toolsData);
    replay.records.forEach((rec, i) => {
      expect(m.apply(rec, rec.timestamp).ok).toBe(true);
      const frame = JSON.parse(serializeMatch(m, rec.timestamp)) as { tools: { agentSelectAutostart: boolean; agentSelectActive: boolean } };
      expect(frame.tools.agentSelectAutostart).toBe(true);
      if (frame.tools.agentSelectActive !== i >= firstRoster) throw new Error(`record ${i}: agentSelectActive ${frame.tools.agentSelectActive}`);
    });
  });

  it('hotkey: off through the roster messages, on from the first toggle, off from the second', () => {
    const m = create({ ...(h.toolsData as object | undefined), agentSelectHotkeyEnabled: true });
    const seen: boolean[] = [];
    let last: boolean | undefined;
    for (const rec of withToggles()) {
      expect(m.apply(rec, rec.timestamp).ok).toBe(true);
      const active = m.liveState().tools.agentSelectActive;
      if (active !== last) seen.push(active);
      last = active;
      if (rec.type === 'roster' && seen.length === 1) expect(active).toBe(false);
    }
    expect(seen).toEqual([false, true, false]);
    expect(m.liveState().tools.agentSelectAutostart).toBe(false);
    expect(m.ended).toBe(true);
  });
});
