// What the events' schema (schema.ts) and the record's (record-schema.ts) are made of: the JSON
// Schema pieces both use, and the $defs both carry (player, team, score).

export type Schema = Record<string, unknown>;

export const str = { type: 'string' } as const;
export const int = { type: 'integer', minimum: 0 } as const;
export const bool = { type: 'boolean' } as const;
export const dateTime = { type: 'string', format: 'date-time' } as const;
export const team = { type: 'integer', enum: [0, 1], description: 'the game team: 0 starts on attack (the game\'s team_0)' } as const;
export const obj = (properties: Schema, required = Object.keys(properties)): Schema => ({ type: 'object', properties, required });
/** Where the overlays and the feeds show a team: the same key and values in the events, the records and the feeds (README, "Joining the outputs"). */
export const overlayTeam = { enum: ['left', 'right'], description: 'where the overlays and the feeds show the team: the feeds\' `team` and `overlayTeam` columns, their left…/right… columns (absent in events stored before it was added)' } as const;
/** An object whose members are all required but `overlayTeam`. */
export const withOverlayTeam = (properties: Schema): Schema => obj({ ...properties, overlayTeam }, Object.keys(properties));

export const player = { $ref: '#/$defs/player' };
export const teamRef = { $ref: '#/$defs/team' };
export const score = { $ref: '#/$defs/score' };
export const teams = { type: 'array', items: { allOf: [teamRef, obj({ startsOnAttack: bool })] }, minItems: 2, maxItems: 2 };
export const endReason = { enum: ['completed', 'inactive', 'admin', 'shutdown'] } as const;
export const winMethod = { enum: ['elimination', 'detonation', 'defuse', 'time'], description: 'how the round was won, as far as the data tells' } as const;
const numOrNull = { type: ['number', 'null'] } as const;
export const series = {
  anyOf: [{ type: 'null' }, obj({ needed: numOrNull, wonLeft: numOrNull, wonRight: numOrNull })],
  description: 'the series as the match\'s tool settings had it at its end (maps needed, won by the left and the right team), null when the series display was off',
};

/** The $defs every schema here refers to. */
export const SHARED_DEFS: Schema = {
  player: withOverlayTeam({ playerId: { ...str, description: 'the game\'s player id (its PUUID), the same in events, records and feeds' }, name: str, agent: str, team }),
  team: withOverlayTeam({ team, name: str, tricode: str }),
  score: obj({ team_0: int, team_1: int }),
};
