// A new match's engine core for a successful first `obs_logon` (docs/match-rules.md 2; initial values 16.3).

import { playercamFetchEffect } from './playercams.js';
import { assignIngameIds, createTeam } from './teams.js';
import { initialToast } from './toast.js';
import { buildTools } from './tools.js';
import type { EngineCore, EngineEffect, EngineSettings, MatchLogon, MatchState, TeamState } from './types.js';

export function createCore(logon: MatchLogon, now: number, settings: EngineSettings): EngineCore {
  const effects: EngineEffect[] = [];
  const isSupporter = logon.isSupporter === true;
  const { tools, playercamSecret, playercamEndTime } = buildTools(
    logon.toolsData,
    isSupporter,
    settings.sponsorLogoUrl,
    effects,
  );
  const ids = assignIngameIds(logon.leftTeam, logon.rightTeam);
  if (ids.conflict) {
    effects.push({
      kind: 'warn',
      code: 'same_attack_start',
      detail: 'both teams have the same attackStart; left team set to ingameTeamId 0 (attacking), right to 1',
    });
  }
  const removeTricode = tools.playercamsInfo.removeTricodes === true;
  const teams: [TeamState, TeamState] = [
    createTeam(logon.leftTeam, ids.left, removeTricode),
    createTeam(logon.rightTeam, ids.right, removeTricode),
  ];

  // Key order = the match_data tree (16.2). Optional members are present as undefined.
  const state: MatchState = {
    matchId: '',
    matchType: 'bomb',
    switchRound: 13,
    firstOtRound: 25,
    groupCode: String(logon.groupCode),
    isRunning: false,
    agentSelectStartTime: undefined,
    roundNumber: 0,
    roundPhase: 'LOBBY',
    roundTimeoutTime: undefined,
    wasTimeout: false,
    spikeDetonationTime: undefined,
    teams,
    map: 'Loading',
    spikeState: { planted: false, detonated: false, defused: false },
    attackersWon: false,
    showAliveKDA: false,
    timeoutState: { techPause: false, leftTeam: false, rightTeam: false, timeRemaining: 0 },
    timeoutGracePeriodPassed: false,
    toastInfo: initialToast(),
    hasEnteredOvertime: false,
    tools,
    organizationId: typeof logon.organizationId === 'string' ? logon.organizationId : '',
    isRegistered: false,
    orgIsSupporter: isSupporter,
  };

  const core: EngineCore = {
    state,
    logonTeams: copyJson({ leftTeam: logon.leftTeam, rightTeam: logon.rightTeam }),
    timers: { tickAt: Infinity, timeoutEndAt: Infinity, toastOffAt: Infinity },
    playercam: { secret: playercamSecret, endTime: playercamEndTime, rawOverrides: null, rawEnabled: null },
    effects,
    // One above the shell's "last sent" marker (0), so the lobby state goes out at the first cycle.
    stateVersion: 1,
    lastChangeAt: now,
    ended: false,
  };
  const cams = playercamFetchEffect(core);
  if (cams) effects.push(cams);
  return core;
}

function copyJson<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}
