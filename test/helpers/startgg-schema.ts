// The start.gg stand-in's schema (test/helpers/startgg.ts): the types of start.gg's GraphQL API the
// service uses, written for this project from start.gg's published reference (developer.start.gg:
// the schema reference, "Sets", "Reporting sets"; docs/brackets.md names what was taken from where).
// Names, arguments and types are start.gg's, so a request valid here is valid there for these
// fields; the descriptions are ours. Not the published schema: that one is not in the repository.
export const STARTGG_STANDIN_SDL = `
"What a client may read."
type Query {
  "An event, by its id or by its slug (tournament/<t>/event/<e>)."
  event(id: ID, slug: String): Event
  "A phase (one bracket of an event), by its id."
  phase(id: ID): Phase
}

"What a tournament admin may change."
type Mutation {
  "Reports a set: its games (gameData replaces what the set holds) and, with winnerId, its winner (the set completes)."
  reportBracketSet(setId: ID!, winnerId: ID, isDQ: Boolean, gameData: [BracketSetGameDataInput]): [Set]
  "Changes the games of a set already reported; its winner cannot change here."
  updateBracketSet(setId: ID!, winnerId: ID, isDQ: Boolean, gameData: [BracketSetGameDataInput]): Set
}

"One game as a client reports it: numbered by gameNum (on the way out a game's number is Game.orderNum)."
input BracketSetGameDataInput {
  winnerId: ID
  gameNum: Int!
  entrant1Score: Int
  entrant2Score: Int
  "The map, as one of the videogame's stages (an id, never a name)."
  stageId: ID
  selections: [BracketSetGameSelectionInput]
}

input BracketSetGameSelectionInput {
  entrantId: ID!
  characterId: Int
}

"Which sets a page holds."
input SetFilters {
  entrantIds: [ID]
  hideEmpty: Boolean
  showByes: Boolean
  phaseIds: [ID]
  phaseGroupIds: [ID]
  roundNumber: Int
  "Set states: 1 not started, 2 in progress, 3 completed, 4 ready, 6 called, 7 queued."
  state: [Int]
  stationIds: [ID]
  updatedAfter: Timestamp
}

scalar Timestamp

enum SetSortType { NONE CALL_ORDER MAGIC RECENT STANDARD ROUND }

type Event {
  id: ID
  name: String
  slug: String
  videogame: Videogame
  sets(page: Int, perPage: Int, sortType: SetSortType, filters: SetFilters): SetConnection
}

type Phase {
  id: ID
  name: String
  event: Event
  sets(page: Int, perPage: Int, sortType: SetSortType, filters: SetFilters): SetConnection
}

type Videogame {
  id: ID
  name: String
  "The game's maps."
  stages: [Stage]
}

type Stage {
  id: ID
  name: String
}

type SetConnection {
  pageInfo: PageInfo
  nodes: [Set]
}

type PageInfo {
  total: Int
  totalPages: Int
  page: Int
  perPage: Int
}

type Set {
  id: ID
  state: Int
  fullRoundText: String
  "How many games: a best of this many when setGamesType is 1."
  totalGames: Int
  setGamesType: Int
  winnerId: Int
  stream: Streams
  station: Stations
  slots(includeByes: Boolean = false): [SetSlot]
  games: [Game]
}

type Game {
  id: ID
  "The game's number in its set."
  orderNum: Int
  winnerId: Int
  entrant1Score: Int
  entrant2Score: Int
  stage: Stage
}

type Streams {
  id: ID
  streamName: String
  streamSource: StreamSource
}

enum StreamSource { TWITCH HITBOX STREAMME MIXER YOUTUBE }

type Stations {
  id: ID
  number: Int
  identifier: Int
}

type SetSlot {
  id: ID
  slotIndex: Int
  entrant: Entrant
}

type Entrant {
  id: ID
  name: String
  "The team this entrant is: its logo is among the team's images."
  team: Team
  participants: [Participant]
}

interface Team {
  id: ID
  name: String
  images(type: String): [Image]
}

type EventTeam implements Team {
  id: ID
  name: String
  images(type: String): [Image]
}

type Image {
  id: ID
  type: String
  url: String
}

type Participant {
  id: ID
  gamerTag: String
  "Accounts the event requires (a Riot ID is the one of type RIOT); tournament admins only."
  requiredConnections: [ProfileAuthorization]
}

type ProfileAuthorization {
  id: ID
  type: AuthorizationType
  externalUsername: String
}

enum AuthorizationType { TWITTER TWITCH STEAM DISCORD XBOX EPIC BATTLENET RIOT MIXER }
`;
