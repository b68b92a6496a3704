// Every GraphQL document the service sends to start.gg (docs/brackets.md): the reads of a linked
// event's or phase's sets, and the two report mutations. Checked against start.gg's published schema
// while building (docs/brackets.md, "Checked against the published schema"), and against the
// stand-in's schema by every test (test/helpers/startgg.ts).
//
// What the published schema makes easy to get wrong: an entrant's logo is on `Entrant.team.images`;
// a Riot ID is only on `Participant.requiredConnections` (type RIOT; tournament admins' tokens only);
// a game is `orderNum` on the way out but `gameNum` in `BracketSetGameDataInput`; a map goes in as
// the videogame's `stageId`, never as a name.

/** The set states read: 1 created (not started), 2 in progress, 4 ready, 6 called, 7 queued (3, completed, is not read). */
export const OPEN_SET_STATES = [1, 2, 4, 6, 7] as const;

const SET_FIELDS = `
fragment BracketSetFields on Set {
  id
  state
  fullRoundText
  totalGames
  setGamesType
  stream { streamName streamSource }
  station { number identifier }
  slots {
    slotIndex
    entrant {
      id
      name
      team { name images { type url } }
      participants { gamerTag requiredConnections { type externalUsername } }
    }
  }
}`;

const SETS_ARGS = 'page: $page, perPage: $perPage, sortType: CALL_ORDER, filters: { state: $states, hideEmpty: true }';
const PAGE = 'pageInfo { total totalPages page }';

export const EVENT_SETS_QUERY = `query BracketEventSets($slug: String!, $page: Int!, $perPage: Int!, $states: [Int]) {
  event(slug: $slug) {
    id
    name
    videogame { id stages { id name } }
    sets(${SETS_ARGS}) { ${PAGE} nodes { ...BracketSetFields } }
  }
}
${SET_FIELDS}`;

export const PHASE_SETS_QUERY = `query BracketPhaseSets($id: ID!, $page: Int!, $perPage: Int!, $states: [Int]) {
  phase(id: $id) {
    id
    name
    event { id name videogame { id stages { id name } } }
    sets(${SETS_ARGS}) { ${PAGE} nodes { ...BracketSetFields } }
  }
}
${SET_FIELDS}`;

/** The match's games so far, and its winner once decided (reportBracketSet: gameData overwrites what the set holds). */
export const REPORT_SET_MUTATION = `mutation BracketReportSet($setId: ID!, $winnerId: ID, $gameData: [BracketSetGameDataInput]) {
  reportBracketSet(setId: $setId, winnerId: $winnerId, gameData: $gameData) { id state winnerId }
}`;

/** A correction of a match the platform holds as decided (its winner unchanged). */
export const UPDATE_SET_MUTATION = `mutation BracketUpdateSet($setId: ID!, $winnerId: ID, $gameData: [BracketSetGameDataInput]) {
  updateBracketSet(setId: $setId, winnerId: $winnerId, gameData: $gameData) { id state winnerId }
}`;

export const ALL_DOCUMENTS = { EVENT_SETS_QUERY, PHASE_SETS_QUERY, REPORT_SET_MUTATION, UPDATE_SET_MUTATION };

/**
 * Sets per page: start.gg answers at most 1000 objects per request, nested ones included. One set
 * as read above is at most about 60 (the set, its stream and station, two slots, two entrants, their
 * teams and images, five or so participants with their connections): 15 sets stay well under it.
 */
export const SETS_PER_PAGE = 15;
/** At most this many pages of one bracket are read (15 × 40 = 600 open sets). */
export const MAX_PAGES = 40;
/** start.gg's documented rate limit: 80 requests per 60 seconds (per token); reads leave the last 20 to reports. */
export const RATE_LIMIT = { requests: 80, windowMs: 60_000, reservedForReports: 20 } as const;
