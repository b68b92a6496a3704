// The schedule's word on a live match (docs/fixtures.md): once the game's roster showed which
// scheduled team is on which side, the main thread (main/fixtures) sends the teams' names, tricodes
// and logos per side and the tool settings that follow the sides (seriesInfo, seedingInfo). Applied
// like a logon's values (docs/match-rules.md 2.2, 2.3): a tools member must fit its broadcast schema,
// else it is ignored; the teams' other fields (ingameTeamId, score, players) stay as they are.
import type { ScheduledTeam } from '../../protocol/shard-messages.js';
import { touch } from './dirty.js';
import { memberValidators } from '../../schemas/checks.js';
import type { MatchState } from './types.js';
import type { ToolsMemberName } from '../../schemas/match-data.js';

/** True when anything changed. */
export function applySchedule(state: MatchState, teams: readonly [ScheduledTeam, ScheduledTeam], tools: Record<string, unknown>): boolean {
  let changed = false;
  teams.forEach((t, i) => {
    const team = state.teams[i];
    if (team.teamName === t.name && team.teamTricode === t.tricode && team.teamUrl === t.url) return;
    team.teamName = t.name;
    team.teamTricode = t.tricode;
    team.teamUrl = t.url;
    changed = true;
  });
  const target = state.tools as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(tools)) {
    const validate = memberValidators.get(key as ToolsMemberName);
    if (!validate || !validate(value)) continue;
    if (JSON.stringify(target[key]) === JSON.stringify(value)) continue;
    target[key] = JSON.parse(JSON.stringify(value));
    changed = true;
  }
  if (changed) touch(state.tools);
  return changed;
}
