// The JSON Schema of a match record (README, "Match records"; docs/events.md, "The match record"),
// served at GET /schema/record.json and inside GET /schema/events.json as match_ended's
// `data.record`. The CSV exports are the record's two lists: rounds.csv has a row per item of
// `playerRounds`, players.csv a row per item of `players`, each with `matchKey` first and then the
// item's members in the order of its `properties` (record.ts builds the columns from the same lists:
// ROUND_CSV_COLUMNS, MATCH_CSV_COLUMNS). Like the events', every object may gain members.
import { dateTime, endReason, int, obj, score, series, SHARED_DEFS, str, team, teamRef, teams, winMethod, withOverlayTeam, type Schema } from './schema-parts.js';

/** A player's counts, in the CSV's column order. */
const COUNT_PROPERTIES: Schema = {
  kills: { ...int, description: 'kills of enemies (per match: the game\'s scoreboard; per round: the killfeed)' },
  deaths: int,
  assists: int,
  teamKills: { ...int, description: 'kills of a teammate (not in kills)' },
  headshots: int,
  firstBloods: { ...int, description: 'the round\'s first kill of an enemy' },
  plants: int,
  defuses: int,
  spent: { ...int, description: 'credits spent in the buy phase (per match: the sum of the rounds)' },
};

const who = { playerId: { ...str, description: 'the game\'s player id (its PUUID): the events\' and feeds\' playerId' }, name: str };

/** One row of rounds.csv (after its matchKey), overlayTeam last (optional: a record of events stored before it existed has none). */
export const PLAYER_ROUND_PROPERTIES: Schema = { round: { type: 'integer', minimum: 1 }, ...who, team, ...COUNT_PROPERTIES };
/** One row of players.csv (after its matchKey), overlayTeam last (as above). */
export const PLAYER_MATCH_PROPERTIES: Schema = { ...who, agent: str, team, ...COUNT_PROPERTIES };

/** The record's own shape (its references resolve against the $defs of the schema that holds it). */
export const RECORD_BODY: Schema = {
  ...obj({
    matchKey: { ...str, description: 'this match\'s instance of the group code: the events\' matchKey, the record\'s key in GET /admin/records/:matchKey' },
    groupCode: str,
    matchId: { ...str, description: 'the game\'s match id' },
    map: str,
    teams,
    startedAt: { ...dateTime, description: 'its first event\'s time' },
    endedAt: { ...dateTime, description: 'match_ended\'s time' },
    storedAt: { ...dateTime, description: 'when the service kept it (the retention counts from here)' },
    reason: endReason,
    score,
    series,
    rounds: { type: 'array', description: 'each round played, in order', items: obj({ round: { type: 'integer', minimum: 1 }, winner: { allOf: [teamRef, obj({ side: { enum: ['attack', 'defense'] } })] }, method: winMethod, score }) },
    players: { type: 'array', description: 'per player for the match: one row of players.csv each (columns: matchKey, then these members in order)', items: withOverlayTeam(PLAYER_MATCH_PROPERTIES) },
    playerRounds: { type: 'array', description: 'per player per round played (an empty line too): one row of rounds.csv each (columns: matchKey, then these members in order), by round, team, name', items: withOverlayTeam(PLAYER_ROUND_PROPERTIES) },
  }),
  description: 'A match\'s record, folded from its events when it ended (README, "Match records").',
};

export const recordSchema: Schema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://overlay-data-service/schema/record.json',
  title: 'Match record',
  ...RECORD_BODY,
  $defs: SHARED_DEFS,
};
