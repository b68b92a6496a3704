// JSON Schema of the broadcast `match_data` tree (docs/match-rules.md 16.2), derived from the engine's
// state types (src/workers/match/types.ts) in the tree's key order.
//
// Used three times:
//  - by fast-json-stringify (src/workers/match/serialize.ts) to build the frame serializer. It drops
//    members the schema does not know and coerces mismatching types silently, so every member the
//    engine writes must be listed here with its real type; test/workers/match/engine-serialize.test.ts round-trips
//    every state of the recorded match against JSON.stringify to catch drift.
//  - by ajv (src/workers/match/tools.ts) to check client-supplied `toolsData` members at match
//    creation, so that nothing the serializer would coerce can ever reach the state.
//  - published as the `match_data` contract for overlay developers (publishedMatchDataSchema below).
//
// To add a member: add it here, run `npm run contract`, and add it to the engine's types
// (src/workers/match/types.ts) at the same position; test/workers/match/types.test.ts fails until both agree.
//
// Objects are open (`additionalProperties: true`) exactly where the rules pass data through as
// received: every `tools` member (the client's object replaces the default as a whole), the
// objects inside them (map entries, round-win sponsors), unknown `tools` members, and `toastInfo`.
// Objects the engine builds itself are closed.
//
// Ratios that divide by zero (`kdRatio`, `headshotRatio`) are nullable and stored as null.
// Optional members (`?` in the tree) are left out of `required`: the engine keeps them as
// `undefined` when unset, and both serializers omit them.

type Schema = Record<string, unknown>;

const str = { type: 'string' } as const;
const num = { type: 'number' } as const;
const bool = { type: 'boolean' } as const;
const numOrNull = { type: ['number', 'null'] } as const;
const strArray = { type: 'array', items: str } as const;

function closed(properties: Schema, required: string[] = Object.keys(properties)): Schema {
  return { type: 'object', properties, required, additionalProperties: false };
}

function open(properties: Schema, required: string[] = []): Schema {
  return { type: 'object', properties, required, additionalProperties: true };
}

const countMap: Schema = { type: 'object', additionalProperties: num };

export const roundRecordEntrySchema: Schema = closed({
  type: { type: 'string', enum: ['upcoming', 'kills', 'detonated', 'defused', 'timeout', 'lost'] },
  wasAttack: bool,
  round: num,
});

/** One round of a team's economy record (docs/match-rules.md 8.1). */
export const moneyRecordEntrySchema: Schema = closed({
  round: num,
  start: {
    type: 'number',
    description: "The team's credits when the round's buy phase began (round income included): the sum over its players of "
      + 'their money just before their first purchase of that buy phase, or at its end for a player who bought nothing.',
  },
  spent: {
    type: 'number',
    description: 'What the team spent in that buy phase, net of sell-backs. Both are updated while the buy phase lasts and frozen after it.',
  },
});

const abilityValue = { type: ['number', 'boolean'] } as const;

export const playerSchema: Schema = closed(
  {
    name: str,
    tagline: str,
    riotId: str,
    searchName: str,
    fullName: str,
    position: num,
    locked: bool,
    agentInternal: str,
    agentProper: str,
    isAlive: bool,
    hasSpike: bool,
    isObserved: bool,
    health: num,
    abilities: closed({ grenade: abilityValue, ability1: abilityValue, ability2: abilityValue }),
    kills: num,
    deaths: num,
    assists: num,
    kdRatio: numOrNull,
    killsThisRound: num,
    deathsThisRound: num,
    killedPlayerNames: strArray,
    currUltPoints: num,
    maxUltPoints: num,
    ultReady: bool,
    money: num,
    moneySpent: num,
    spentMoneyThisRound: bool,
    armorName: str,
    highestWeapon: str,
    currentMMRTier: numOrNull,
    peakMMRTier: numOrNull,
    teamKills: num,
    headshotKills: num,
    headshotRatio: numOrNull,
    killsByWeaponsAndAbilities: countMap,
    killsOnEnemyPlayer: countMap,
    killsOnTeammatePlayer: countMap,
    assistsFromTeammate: countMap,
    scoreboardAvailable: bool,
    auxiliaryAvailable: closed({ health: bool, abilities: bool, scoreboard: bool }),
    iconNameSuffix: str,
  },
  // everything except the optional tagline, armorName and highestWeapon
  [
    'name', 'riotId', 'searchName', 'fullName', 'position', 'locked', 'agentInternal', 'agentProper',
    'isAlive', 'hasSpike', 'isObserved', 'health', 'abilities', 'kills', 'deaths', 'assists', 'kdRatio',
    'killsThisRound', 'deathsThisRound', 'killedPlayerNames', 'currUltPoints', 'maxUltPoints', 'ultReady',
    'money', 'moneySpent', 'spentMoneyThisRound', 'currentMMRTier', 'peakMMRTier', 'teamKills',
    'headshotKills', 'headshotRatio', 'killsByWeaponsAndAbilities', 'killsOnEnemyPlayer',
    'killsOnTeammatePlayer', 'assistsFromTeammate', 'scoreboardAvailable', 'auxiliaryAvailable',
    'iconNameSuffix',
  ],
);

export const teamSchema: Schema = closed({
  teamName: str,
  teamTricode: str,
  teamUrl: str,
  ingameTeamId: { type: 'number', enum: [0, 1] },
  isAttacking: bool,
  hasHandledTeam: bool,
  roundsWon: num,
  spentThisRound: num,
  roundRecord: { type: 'array', items: roundRecordEntrySchema },
  moneyRecord: {
    type: 'array',
    items: moneyRecordEntrySchema,
    description: 'The economy record: one entry per round, round 1 first, a new one when the next round\'s buy phase begins '
      + '(`shopping`). Kept for supporter organisations only: empty for other matches.',
  },
  removeTricode: bool,
  players: { type: 'array', items: playerSchema },
  playerCount: num,
  hasDuplicateAgents: bool,
});

const mapInfoSide: Schema = open({ score: numOrNull, logo: str });

/**
 * The `tools` members, each as the client may send it (all open: passed through as received).
 * Required lists name only what the overlay cannot do without or what the rules write.
 */
export const toolsMemberSchemas = {
  seriesInfo: open(
    {
      enable: bool,
      needed: numOrNull,
      wonLeft: numOrNull,
      wonRight: numOrNull,
      seedingLeft: str,
      seedingRight: str,
      mapInfo: {
        type: 'array',
        items: open({ type: str, map: str, logo: str, left: mapInfoSide, right: mapInfoSide }, ['type']),
      },
    },
    ['mapInfo'],
  ),
  seedingInfo: open({ left: str, right: str }),
  tournamentInfo: open({
    name: str,
    logoUrl: str,
    backdropUrl: str,
    enabled: bool,
    timeoutDuration: num,
    showMappool: bool,
  }),
  timeoutDuration: { type: 'number', minimum: 0, maximum: 86400 },
  timeoutCounter: open(
    {
      max: { type: 'number', minimum: 0, maximum: 99 },
      left: num,
      right: num,
    },
    ['max'],
  ),
  timeoutCancellationGracePeriod: { type: 'number', minimum: 0, maximum: 86400 },
  sponsorInfo: open({ enabled: bool, duration: num, sponsors: strArray }, ['sponsors']),
  watermarkInfo: open({ spectraWatermark: bool, customTextEnabled: bool, customText: str }),
  playercamsInfo: open({ enable: bool, removeTricodes: bool, identifier: str, enabledPlayers: strArray }),
  nameOverrides: open({ overrides: str }, ['overrides']),
  roundWinBox: open(
    {
      type: str,
      sponsors: {
        type: 'array',
        items: open({
          wonTeam: str,
          roundCeremony: strArray,
          iconUrl: str,
          backdropUrl: str,
          roundCeremonie: strArray,
        }),
      },
    },
    ['type', 'sponsors'],
  ),
} satisfies Record<string, Schema>;

export type ToolsMemberName = keyof typeof toolsMemberSchemas;

/** `tools` members the service writes itself: never taken from `toolsData` (docs/match-rules.md 2.2 step 7, 4.17). */
export const toolsServiceSchemas = {
  agentSelectAutostart: {
    type: 'boolean',
    description: 'false when the observer logged on with toolsData.agentSelectHotkeyEnabled true (the operator shows agent select with a hotkey), '
      + 'else true: agent select then starts by itself with a roster message.',
  },
  agentSelectActive: {
    type: 'boolean',
    description: 'The overlay shows agent select while true. false at creation; a roster message sets it when agentSelectAutostart '
      + 'is true; each toggle_agent_select message flips it.',
  },
} satisfies Record<string, Schema>;

const toolsProperties = { ...toolsMemberSchemas, ...toolsServiceSchemas };
export const toolsSchema: Schema = open(toolsProperties, Object.keys(toolsProperties));

export const toastInfoSchema: Schema = open(
  {
    active: bool,
    title: str,
    message: str,
    duration: numOrNull,
    eventLogoEnabled: bool,
    selectedTeam: str,
  },
  ['active'],
);

export const matchDataSchema: Schema = closed(
  {
    matchId: str,
    matchType: str,
    switchRound: num,
    firstOtRound: num,
    groupCode: str,
    isRunning: {
      type: 'boolean',
      description: 'true from match_start until the match ends. false before match_start (agent select) and in the last frame '
        + 'of a match: at game_end (with roundPhase "game_end"), and when it ends otherwise (operator force-end, inactivity removal, '
        + 'service shutdown without STATE_DIR), where every other member is as it was.',
    },
    agentSelectStartTime: num,
    roundNumber: num,
    roundPhase: str,
    roundTimeoutTime: num,
    wasTimeout: bool,
    spikeDetonationTime: num,
    teams: { type: 'array', items: teamSchema, minItems: 2, maxItems: 2 },
    map: str,
    spikeState: closed({ planted: bool, detonated: bool, defused: bool }),
    attackersWon: bool,
    showAliveKDA: bool,
    timeoutState: closed({ techPause: bool, leftTeam: bool, rightTeam: bool, timeRemaining: num }),
    timeoutGracePeriodPassed: bool,
    toastInfo: toastInfoSchema,
    hasEnteredOvertime: bool,
    tools: toolsSchema,
    organizationId: str,
    isRegistered: bool,
    orgIsSupporter: bool,
    // Not part of the engine's state: the shard adds it when it serializes a frame (serialize.ts).
    serverTime: {
      type: 'number',
      description: 'Epoch ms at which the service serialized this frame (with TRUST_REPLAY_TIMESTAMPS: the match clock). '
        + 'Overlays compare it with their own clock before showing roundTimeoutTime and spikeDetonationTime countdowns.',
    },
  },
  [
    'matchId', 'matchType', 'switchRound', 'firstOtRound', 'groupCode', 'isRunning', 'roundNumber',
    'roundPhase', 'wasTimeout', 'teams', 'map', 'spikeState', 'attackersWon', 'showAliveKDA',
    'timeoutState', 'timeoutGracePeriodPassed', 'toastInfo', 'hasEnteredOvertime', 'tools',
    'organizationId', 'isRegistered', 'orgIsSupporter', 'serverTime',
  ],
);

/**
 * The published `match_data` contract (GET /schema/match_data.json, contract/match_data.schema.json):
 * the schema the serializer is built from, with the JSON Schema dialect, an id and a title.
 * Generated TypeScript types: contract/match-data.d.ts (`npm run contract`; a test checks both
 * files are current).
 */
export const publishedMatchDataSchema: Schema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'urn:overlay-data-service:match_data',
  title: 'MatchData',
  description: 'One match_data frame: the complete match snapshot the broadcast port sends to overlay frontends '
    + '(docs/match-rules.md section 16), also served by GET /match/:groupCode.',
  ...matchDataSchema,
};
