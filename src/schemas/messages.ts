// ajv schemas for the observer/auxiliary message envelope and each message type's `data`
// (docs/client-contract.md 3 and 4, docs/match-rules.md 3–5); their compiled validators: checks.ts.
//
// They require only the members the rules read and allow extra members. They accept the real
// clients' quirks (docs/client-contract.md 3.5): `startTeam` as a string or a number, ability charges as numbers
// or booleans, empty taglines, unmapped weapon names, `aux_scoreboard_team` as a JSON string or an
// array (the string is parsed by the engine, then its rows are checked with `validateAuxTeamRows`).
//
// Numbers must be finite (`strictNumbers`): JSON.parse turns 1e400 into Infinity. Values the engine
// adds up (money, kills, ...) are counts: 0 to 1e6 (the recorded match stays below 10,000), so sums
// can never overflow into Infinity or NaN, which fast-json-stringify would print as null or throw
// on, and a negative or absurd value is refused rather than shown. Strings the state keeps are
// bounded too (512 characters; toast texts 2048), so one message cannot bloat every frame.

const str = { type: 'string', maxLength: 512 } as const;
const bool = { type: 'boolean' } as const;
const anyValue = {} as const;
/** a number the engine does arithmetic with */
const amount = { type: 'number', minimum: 0, maximum: 1e6 } as const;
const startTeam = { type: ['string', 'number'] } as const;

export type Schema = Record<string, unknown>;

function object(properties: Schema, required: string[] = Object.keys(properties)): Schema {
  return { type: 'object', properties, required, additionalProperties: true };
}

// ---------------------------------------------------------------------------------------------
// Envelopes

/** obs_data envelope: `{obsName, groupCode, type, data}` (obsName is not read). */
export const observerEnvelopeSchema = object({ groupCode: str, type: str, data: anyValue });
/** aux_data envelope (and `aux_*` records of replay files): `{playerId, matchId, type, data}`. */
export const auxEnvelopeSchema = object({ playerId: str, matchId: str, type: str, data: anyValue });

export interface ObserverEnvelope {
  groupCode: string;
  type: string;
  data: unknown;
  [extra: string]: unknown;
}
export interface AuxEnvelope {
  playerId: string;
  matchId: string;
  type: string;
  data: unknown;
  [extra: string]: unknown;
}

// ---------------------------------------------------------------------------------------------
// Data shapes

/** Scoreboard row members read by the shared row update (docs/match-rules.md 4.2.1); name/tagline are not read. */
const rowProperties = {
  playerId: str,
  agentInternal: str,
  isAlive: bool,
  initialArmor: amount,
  scoreboardWeaponInternal: str,
  currUltPoints: amount,
  maxUltPoints: amount,
  hasSpike: bool,
  money: amount,
  kills: amount,
  deaths: amount,
  assists: amount,
};

export interface TeamRow {
  playerId: string;
  agentInternal: string;
  isAlive: boolean;
  initialArmor: number;
  scoreboardWeaponInternal: string;
  currUltPoints: number;
  maxUltPoints: number;
  hasSpike: boolean;
  money: number;
  kills: number;
  deaths: number;
  assists: number;
}
export interface ScoreboardRow extends TeamRow {
  startTeam: string | number;
}

export const scoreboardSchema = object({ ...rowProperties, startTeam });
/** `aux_scoreboard_team` rows carry no name, tagline or startTeam. */
export const auxTeamRowsSchema: Schema = { type: 'array', items: object(rowProperties), maxItems: 10 };

export interface RosterData {
  name: string;
  tagline?: string;
  startTeam: string | number;
  agentInternal: string;
  playerId: string;
  position: number;
  locked: boolean;
}
/** `tagline` may be empty or missing (then the roster row only counts as the first roster message). */
export const rosterSchema = object(
  { name: str, tagline: str, startTeam, agentInternal: str, playerId: str, position: amount, locked: bool },
  ['name', 'startTeam', 'agentInternal', 'playerId', 'position', 'locked'],
);

export interface KillfeedData {
  attacker: string;
  victim: string;
  weaponKillfeedInternal: string;
  headshotKill?: unknown;
  assists?: unknown[];
  isTeamkill?: unknown;
}
/** `headshotKill`/`isTeamkill` are compared with `=== true` / `=== false` as received; `assists` may be absent. */
export const killfeedSchema = object(
  {
    attacker: str,
    victim: str,
    weaponKillfeedInternal: str,
    headshotKill: anyValue,
    assists: { type: 'array', maxItems: 10 },
    isTeamkill: anyValue,
  },
  ['attacker', 'victim', 'weaponKillfeedInternal'],
);

export interface RoundInfoData {
  roundNumber: number;
  roundPhase: string;
}
/** The 1 ≤ roundNumber ≤ 99 bound is checked by the engine, which reports it as `round_out_of_range`. */
export const roundInfoSchema = object({ roundNumber: { type: 'number' }, roundPhase: str });

export interface ScoreData {
  team_0: number;
  team_1: number;
}
export const scoreSchema = object({ team_0: amount, team_1: amount });

export interface ToastData {
  title: string;
  message: string;
  duration?: number | null;
  selectedTeam?: string;
  eventLogoEnabled?: boolean;
  [extra: string]: unknown;
}
/** The received object becomes `toastInfo`, so every member the broadcast schema types is typed here too. */
export const toastSchema = object(
  {
    title: { type: 'string', maxLength: 2048 },
    message: { type: 'string', maxLength: 2048 },
    duration: { type: ['number', 'null'], minimum: 0, maximum: 86_400_000 },
    selectedTeam: str,
    eventLogoEnabled: bool,
    active: bool,
  },
  ['title', 'message'],
);

export interface AbilitiesData {
  grenade: number | boolean;
  ability_1: number | boolean;
  ability_2: number | boolean;
}
const charge = { type: ['number', 'boolean'] } as const;
export const auxAbilitiesSchema = object({ grenade: charge, ability_1: charge, ability_2: charge });

/** `data` schema per message type. Types not listed take any `data` (toggles read none). */
export const dataSchemas: Record<string, Schema> = {
  scoreboard: scoreboardSchema,
  roster: rosterSchema,
  killfeed: killfeedSchema,
  round_info: roundInfoSchema,
  score: scoreSchema,
  match_start: str,
  map: str,
  game_mode: str,
  observing: str,
  toast: toastSchema,
  aux_scoreboard: scoreboardSchema,
  aux_scoreboard_team: { type: ['string', 'array'] },
  aux_health: amount,
  aux_abilities: auxAbilitiesSchema,
  aux_astra_targeting: bool,
  aux_cypher_cam: bool,
};
