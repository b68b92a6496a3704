// The JSON Schema of the match events (docs/events.md), served at GET /schema/events.json: one schema
// for every event, the envelope with `type` choosing the data's shape. Every object allows members
// it does not name (additionalProperties is never false): adding a field is never a breaking change,
// and a consumer must ignore the members it does not know (docs/events.md, "Versioning").
import { EVENTS_VERSION, MATCH_EVENT_TYPES } from '../../protocol/match-events.js';

import { RECORD_BODY } from './record-schema.js';
import { bool, endReason, int, obj, player, score, series, SHARED_DEFS, str, team, teamRef, teams, winMethod, withOverlayTeam, type Schema } from './schema-parts.js';

/** Each event type's `data`. */
const DATA: Record<(typeof MATCH_EVENT_TYPES)[number], Schema> = {
  match_created: obj({ teams, map: str }),
  map_selected: obj({ map: str }),
  agent_selected: obj({ player }),
  match_started: obj({ matchId: str, teams, map: str }),
  round_started: obj({ round: int }),
  round_ended: obj({
    round: int,
    winner: { allOf: [teamRef, obj({ side: { enum: ['attack', 'defense'] } })] },
    method: winMethod,
    score,
    players: { type: 'array', items: withOverlayTeam({ playerId: str, name: str, team, kills: int, deaths: int, assists: int, spent: { ...int, description: 'credits spent in this round\'s buy phase' } }) },
    multiKills: { type: 'array', items: obj({ player, kills: { type: 'integer', minimum: 2 } }), description: 'each player with 2 or more kills of enemies in the round as it ended, in the players\' order: the highest of the round\'s multi_kill events (absent in events stored before it was added)' },
  }, ['round', 'winner', 'method', 'score', 'players']),
  kill: obj({
    attacker: { anyOf: [player, obj({ name: str })] },
    victim: { anyOf: [player, obj({ name: str })] },
    weapon: { ...str, description: 'the killfeed\'s internal weapon or ability name' },
    weaponName: str,
    headshot: bool,
    assists: { type: 'array', items: player },
    firstBlood: bool,
    teamKill: bool,
  }),
  multi_kill: { ...obj({ player, kills: { type: 'integer', minimum: 2, description: 'the player\'s kills of enemies in the round so far' } }), description: 'at each kill from a player\'s 2nd in a round: a later one of the same player and round supersedes it; round_ended.multiKills has the round\'s final ones' },
  ace: obj({ player }),
  clutch: obj({ player, against: { type: 'integer', minimum: 1, description: 'enemies alive when the player became the last of the team' } }),
  spike_planted: obj({ planter: { anyOf: [player, { type: 'null' }] } }),
  spike_defused: obj({ defuser: { anyOf: [player, { type: 'null' }] } }),
  spike_detonated: obj({}),
  timeout_called: obj({ team: teamRef, duration: { type: 'number' } }),
  timeout_ended: obj({ team: teamRef }),
  tech_pause_started: obj({}),
  tech_pause_ended: obj({}),
  match_ended: obj({
    reason: endReason,
    matchId: str,
    map: str,
    teams,
    score,
    players: { type: 'array', items: withOverlayTeam({ playerId: str, name: str, agent: str, team, kills: int, deaths: int, assists: int }) },
    series,
    record: { $ref: '#/$defs/record' },
  }),
  observer_failover: obj({ cause: { enum: ['primary_closed', 'primary_silent', 'manual'] }, from: { enum: ['group', 'standby'] }, to: { enum: ['group', 'standby'] } }),
  observer_silent: obj({ lastMessageAt: { anyOf: [{ type: 'null' }, str] }, silentMs: int }),
  observer_back: obj({ silentMs: int }),
};

export const eventsSchema: Schema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://overlay-data-service/schema/events.json',
  title: 'Match event',
  description: `Every event of webhooks and GET /events (version ${EVENTS_VERSION}). Objects may gain members in any release: ignore those you do not know.`,
  type: 'object',
  required: ['id', 'type', 'version', 'seq', 'groupCode', 'matchId', 'matchKey', 'time', 'round', 'data'],
  properties: {
    id: { ...str, description: 'stable and unique: <matchKey>.<seq>; the webhook-id of its deliveries' },
    type: { enum: [...MATCH_EVENT_TYPES] },
    version: { type: 'integer', minimum: 1 },
    seq: { type: 'integer', minimum: 1, description: '1, 2, 3… per match, without gaps' },
    groupCode: str,
    matchId: { ...str, description: 'the game\'s match id, \'\' before match_start' },
    matchKey: { ...str, description: 'this match\'s instance of the group code; its record\'s key' },
    time: { type: 'string', format: 'date-time' },
    round: int,
    data: { type: 'object' },
  },
  allOf: MATCH_EVENT_TYPES.map((t) => ({ if: { properties: { type: { const: t } } }, then: { properties: { data: DATA[t] } } })),
  $defs: { ...SHARED_DEFS, record: RECORD_BODY },
};
